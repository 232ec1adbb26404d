// Decoding a live-preview frame's bytes into something a canvas draws. WebCodecs' ImageDecoder
// first: it decodes in the page from the bytes as they are, where createImageBitmap needs a Blob,
// and every Blob the page makes is registered with the browser process (two IPC round trips and
// a copy of the picture per frame). Measured in bench/preview-display.ts at 10 frames/s: decoder-2d
// about 6% of a core against bitmap-2d's 7-9%, the browser process's share near 0. The VideoFrame
// it gives is drawn as it is (making an ImageBitmap of it costs more than it saves). Where
// ImageDecoder is missing (a page that is not a secure context) or refuses the type,
// createImageBitmap of a Blob does it.
import type { PreviewView } from '@shared/ipc/contract';

/** A decoded frame as the preview store and the canvases use it (structural: the Node tests have no DOM library). */
export interface PreviewBitmap {
  /** 0 once closed, as an ImageBitmap's. */
  readonly width: number;
  readonly height: number;
  /** What a canvas draws (a VideoFrame or an ImageBitmap); null once closed. */
  readonly image: unknown;
  close(): void;
}

/** Decodes a frame's bytes; null when they are not a picture. */
export type BitmapDecoder = (frame: PreviewView) => Promise<PreviewBitmap | null>;

interface Closable {
  close(): void;
}
interface VideoFrameLike extends Closable {
  readonly displayWidth: number;
  readonly displayHeight: number;
}
interface ImageDecoderLike extends Closable {
  decode(): Promise<{ image: VideoFrameLike }>;
}
interface ImageDecoderClass {
  new (init: { data: Uint8Array; type: string }): ImageDecoderLike;
  isTypeSupported(type: string): Promise<boolean>;
}

const page = globalThis as unknown as {
  ImageDecoder?: ImageDecoderClass;
  createImageBitmap(blob: Blob): Promise<Closable & { readonly width: number; readonly height: number }>;
};

/** A decoded picture and its size; closing it releases the pixels. */
class DecodedPicture implements PreviewBitmap {
  #image: Closable | null;

  constructor(
    image: Closable,
    private readonly naturalWidth: number,
    private readonly naturalHeight: number,
  ) {
    this.#image = image;
  }

  get width(): number {
    return this.#image ? this.naturalWidth : 0;
  }

  get height(): number {
    return this.#image ? this.naturalHeight : 0;
  }

  get image(): unknown {
    return this.#image;
  }

  close(): void {
    this.#image?.close();
    this.#image = null;
  }
}

/** Whether ImageDecoder takes a type, asked once per type. */
const decoderTakes = new Map<string, Promise<boolean>>();

function imageDecoderFor(mime: string): Promise<ImageDecoderClass | null> {
  const Decoder = page.ImageDecoder;
  if (typeof Decoder !== 'function') return Promise.resolve(null);
  let takes = decoderTakes.get(mime);
  if (!takes) {
    takes = Decoder.isTypeSupported(mime).catch(() => false);
    decoderTakes.set(mime, takes);
  }
  return takes.then((yes) => (yes ? Decoder : null));
}

export const decodeBitmap: BitmapDecoder = async ({ bytes, mime }) => {
  try {
    const Decoder = await imageDecoderFor(mime);
    if (Decoder) {
      const decoder = new Decoder({ data: bytes, type: mime });
      try {
        const { image } = await decoder.decode();
        return new DecodedPicture(image, image.displayWidth, image.displayHeight);
      } finally {
        // The frame it gave stays valid: only the decoder's own resources go.
        decoder.close();
      }
    }
    const bitmap = await page.createImageBitmap(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mime }));
    return new DecodedPicture(bitmap, bitmap.width, bitmap.height);
  } catch {
    return null;
  }
};
