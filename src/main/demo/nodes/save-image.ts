// SaveImage (type output) and PreviewImage (type temp): encode the IMAGE as PNG and store it through
// the context, which names it like the real server (<prefix>_00001_.png). When the executor passes
// the hidden `prompt` input, the workflow JSON goes into a `prompt` text chunk, and every entry of the
// hidden `extra_pnginfo` (the editor sends its graph as `workflow`) into a chunk of its own name, as
// the real node does: that is what lets an output open again in the editor.
import { randomInt } from 'node:crypto';
import { stringifyJsonExact } from '@shared/json';
import type { DemoNode, DemoNodeContext, RgbaImage, SavedFile } from '../node-api';
import { NodeExecutionError } from '../node-api';
import { buildDefinition, readNodeInputs } from './define';
import { encodePng } from './image-codec';
import { imageInput, stringInput } from './input-specs';

const HIDDEN = { prompt: 'PROMPT', extra_pnginfo: 'EXTRA_PNGINFO' };

const saveShape = {
  name: 'SaveImage',
  displayName: 'Save Image',
  description: 'Saves the input image as a PNG output file.',
  category: 'image',
  pythonModule: 'nodes',
  required: {
    images: imageInput('The images to save.'),
    filename_prefix: stringInput({ default: 'Flowdeck', tooltip: 'The prefix for the file to save; may start with a subfolder, e.g. samples/cat.' }),
  },
  optional: {},
  hidden: HIDDEN,
  outputs: [],
  outputNode: true,
};

const previewShape = {
  name: 'PreviewImage',
  displayName: 'Preview Image',
  description: 'Saves the input image as a temporary PNG, to look at.',
  category: 'image',
  pythonModule: 'nodes',
  required: { images: imageInput('The images to preview.') },
  optional: {},
  hidden: HIDDEN,
  outputs: [],
  outputNode: true,
};

/** Refuses prefixes that would leave the output folder ("..", absolute paths), like the real node. */
export function checkPrefix(node: string, prefix: string): void {
  const parts = prefix.replace(/\\/g, '/').split('/');
  if (prefix.startsWith('/') || /^[a-zA-Z]:/.test(prefix) || parts.includes('..')) {
    throw new NodeExecutionError('Exception', `${node}: saving outside the output folder is not allowed (filename_prefix "${prefix}").`);
  }
}

/** The hidden `prompt` input as text, when the executor supplies it (an object or JSON text). */
function promptText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && !ArrayBuffer.isView(value)) {
    try {
      return stringifyJsonExact(value);
    } catch {
      return null;
    }
  }
  return null;
}

/** The text chunks of an output: `prompt`, then each extra_pnginfo entry (keys PNG can name). */
function textChunks(prompt: unknown, extraPnginfo: unknown): Record<string, string> {
  const chunks: Record<string, string> = {};
  const text = promptText(prompt);
  if (text !== null) chunks.prompt = text;
  if (typeof extraPnginfo === 'object' && extraPnginfo !== null && !Array.isArray(extraPnginfo) && !ArrayBuffer.isView(extraPnginfo)) {
    for (const [key, value] of Object.entries(extraPnginfo)) {
      const entry = promptText(value);
      if (entry !== null && /^[\x20-\x7e]{1,79}$/.test(key)) chunks[key] = entry;
    }
  }
  return chunks;
}

async function savePng(
  context: DemoNodeContext,
  image: RgbaImage,
  prefix: string,
  type: 'output' | 'temp',
  prompt: unknown,
  extraPnginfo: unknown,
): Promise<SavedFile> {
  const text = textChunks(prompt, extraPnginfo);
  const bytes = encodePng(image, { compressionLevel: type === 'temp' ? 1 : 4, text });
  return context.saveFile(prefix, 'png', bytes, type);
}

export function createSaveImageNode(): DemoNode {
  return {
    definition: buildDefinition(saveShape),
    async run(context, inputs) {
      const { images, filename_prefix } = readNodeInputs(saveShape, inputs);
      checkPrefix('SaveImage', filename_prefix);
      const saved = await savePng(context, images, filename_prefix, 'output', inputs.prompt, inputs.extra_pnginfo);
      return { outputs: [], ui: { images: [saved] } };
    },
  };
}

export function createPreviewImageNode(): DemoNode {
  return {
    definition: buildDefinition(previewShape),
    async run(context, inputs) {
      const { images } = readNodeInputs(previewShape, inputs);
      // The real node appends "_temp_" and five random letters so previews never collide.
      const letters = Array.from({ length: 5 }, () => 'abcdefghijklmnopqrstuvwxyz'[randomInt(26)]).join('');
      const saved = await savePng(context, images, `Flowdeck_temp_${letters}`, 'temp', inputs.prompt, inputs.extra_pnginfo);
      return { outputs: [], ui: { images: [saved] } };
    },
  };
}
