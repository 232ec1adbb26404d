// A job's outputs as viewer items: the files the output store fetched (blob URLs it owns), each
// paired with the job's input image when the job had one (read from the server with input.fetch).
import type { Api } from '../api';
import { refFromInputValue } from '../mask/upload';
import type { OutputState } from '../stores/outputs.svelte';
import type { ViewerItem } from './viewer.svelte';

type Ready = Extract<OutputState, { status: 'ready' }>;

export function jobViewerItems(api: Api, promptId: string, states: readonly OutputState[], inputImages: readonly string[]): ViewerItem[] {
  const first = inputImages[0];
  const ref = first !== undefined ? refFromInputValue(first) : null;
  const input =
    ref && ref.type === 'input'
      ? { name: ref.name, load: () => api.call('input.fetch', { name: ref.name, subfolder: ref.subfolder, type: 'input' as const }) }
      : null;
  return states
    .filter((s): s is Ready => s.status === 'ready')
    .map((s) => {
      const file = { filename: s.file.filename, subfolder: s.file.subfolder, type: s.file.type };
      // From main again (the page's policy does not let it read its own blob URLs back).
      return {
        name: s.file.filename,
        url: s.url,
        kind: s.kind,
        load: () => api.call('output.fetch', { promptId, file }),
        libraryId: null,
        output: { promptId, file },
        input,
      };
    });
}
