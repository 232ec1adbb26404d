// Collects the files a job produced from `executed.output` objects and history `outputs[node]`.
// Servers use many keys (images, video, videos, audio, gifs, 3d, and whatever custom nodes invent),
// so every array holding file references is taken, under any key; values that are not arrays of
// file references (such as `animated: [true]` or text outputs) are skipped.
import type { OutputFile } from './types';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fileKey(file: { filename: string; subfolder: string; type: string }): string {
  // NUL cannot occur in a file name, so it separates the parts unambiguously.
  return `${file.type}\u0000${file.subfolder}\u0000${file.filename}`;
}

/** The file references of one node's output, in order, without duplicates. */
export function collectNodeOutputs(node: string, output: unknown, seen: Set<string> = new Set()): OutputFile[] {
  if (!isRecord(output)) return [];
  const files: OutputFile[] = [];
  for (const [key, value] of Object.entries(output)) {
    if (!Array.isArray(value)) continue;
    for (const item of value) {
      if (!isRecord(item) || typeof item.filename !== 'string' || item.filename === '') continue;
      const file: OutputFile = {
        filename: item.filename,
        subfolder: typeof item.subfolder === 'string' ? item.subfolder : '',
        // `type` is "output" for final files; a reference without one is an output.
        type: typeof item.type === 'string' && item.type !== '' ? item.type : 'output',
        node,
        key,
      };
      const id = fileKey(file);
      if (seen.has(id)) continue;
      seen.add(id);
      files.push(file);
    }
  }
  return files;
}

/** The files of a history entry's `outputs` ({node id: output}), de-duplicated across nodes. */
export function collectHistoryOutputs(outputs: unknown): OutputFile[] {
  if (!isRecord(outputs)) return [];
  const seen = new Set<string>();
  const files: OutputFile[] = [];
  for (const [node, output] of Object.entries(outputs)) files.push(...collectNodeOutputs(node, output, seen));
  return files;
}
