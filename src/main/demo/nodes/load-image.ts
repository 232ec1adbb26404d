// LoadImage, as the real server's: the `image` input is a legacy combo of the uploaded input files
// with `image_upload: true`; outputs IMAGE (the colours, alpha dropped) and MASK = 1 - alpha, so a
// transparent pixel (alpha 0) is masked (1.0) and an image without alpha gives an all-zero mask.
import type { DemoNode } from '../node-api';
import { NodeExecutionError } from '../node-api';
import { buildDefinition, readNodeInputs } from './define';
import { ImageDecodeError, decodeImage } from './image-codec';
import { splitAlpha } from './image-ops';
import { legacyComboInput } from './input-specs';

/** Splits `sub/dir/name.png` into the name and its subfolder (either slash accepted). */
export function splitInputName(name: string): { filename: string; subfolder: string } {
  const normalised = name.replace(/\\/g, '/');
  const cut = normalised.lastIndexOf('/');
  return cut < 0 ? { filename: normalised, subfolder: '' } : { filename: normalised.slice(cut + 1), subfolder: normalised.slice(0, cut) };
}

function shape(listInputFiles: () => string[]) {
  return {
    name: 'LoadImage',
    displayName: 'Load Image',
    description: 'Loads an uploaded image. MASK is 1 - alpha: transparent pixels are the masked (painted) region.',
    category: 'image',
    pythonModule: 'nodes',
    required: {
      // The list is read when the definition is read, so new uploads appear in /object_info;
      // `check: false` because validate() accepts any existing input file, listed or not.
      image: legacyComboInput({ options: () => [...listInputFiles()].sort(), extra: { image_upload: true }, check: false }),
    },
    optional: {},
    outputs: [{ type: 'IMAGE' }, { type: 'MASK' }],
    outputNode: false,
  };
}

export function createLoadImageNode(listInputFiles: () => string[] = () => []): DemoNode {
  const s = shape(listInputFiles);
  return {
    get definition() {
      return buildDefinition(s);
    },
    validate(inputs, files) {
      const name = inputs.image;
      if (typeof name !== 'string' || name === '') return `Invalid image file: ${String(name)}`;
      return files.inputExists(name) ? null : `Invalid image file: ${name}`;
    },
    async run(context, inputs) {
      const { image: name } = readNodeInputs(s, inputs);
      const { filename, subfolder } = splitInputName(name);
      let bytes: Uint8Array;
      try {
        bytes = await context.readFile(filename, subfolder, 'input');
      } catch (error) {
        throw new NodeExecutionError(
          'FileNotFoundError',
          `LoadImage: cannot read the input file "${name}": ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      try {
        const { image, mask } = splitAlpha(decodeImage(bytes));
        return { outputs: [image, mask] };
      } catch (error) {
        if (!(error instanceof ImageDecodeError)) throw error;
        // PIL's exception name, as the real server reports an unreadable image.
        throw new NodeExecutionError('UnidentifiedImageError', `LoadImage: cannot identify image file "${name}": ${error.message}`);
      }
    },
  };
}
