// The painter's way to the server: the contract's upload calls through the renderer's Api (main
// does the HTTP, the renderer never touches the network), and a library output as a mask source.
import type { FileRefView } from '@shared/ipc/contract';
import type { Api } from '../api';
import type { MaskSource, MaskUploadPort } from './upload';

export function maskPortFromApi(api: Api): MaskUploadPort {
  return {
    async uploadImage(name, bytes) {
      const answer = await api.call('upload.image', { name, bytes });
      // null only answers the file dialog's cancel, which a call with bytes never opens.
      if (!answer) throw new Error('the app answered no upload.');
      return answer;
    },
    uploadMask: (original, maskPng) =>
      api.call('upload.mask', { original: { name: original.name, subfolder: original.subfolder, type: original.type }, maskPng }),
  };
}

/**
 * A job's output as a mask source. It is already on the server (type `output`), so the mask names
 * it directly as its original and nothing is uploaded twice.
 */
export async function maskSourceFromOutput(api: Api, promptId: string, file: FileRefView): Promise<MaskSource> {
  const { mime, bytes } = await api.call('output.fetch', { promptId, file });
  return { name: file.filename, bytes, mime, serverRef: { name: file.filename, subfolder: file.subfolder, type: file.type } };
}

/**
 * A library output as a mask source, from the library folder (`library.bytes`), so it opens even
 * after the server forgot the file, and a masked PNG re-opens with its mask (the painter reads its
 * alpha). Saving uploads it first: the server's copy may be gone or on another server.
 */
export async function maskSourceFromLibrary(api: Api, item: { id: number; fileName: string }): Promise<MaskSource> {
  const { mime, bytes } = await api.call('library.bytes', { id: item.id });
  return { name: item.fileName, bytes, mime, serverRef: null };
}
