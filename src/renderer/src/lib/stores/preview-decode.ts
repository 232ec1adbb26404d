// Decoding a live-preview frame's bytes into an ImageBitmap the canvases draw. WebCodecs'
// ImageDecoder first: it decodes in the page from the bytes as they are, where createImageBitmap
// needs a Blob, and every Blob the page makes is registered with the browser process (IPC and a
// copy of the picture per frame). ImageDecoder gives a YUV VideoFrame, and drawing that converts it
// to RGB on the main thread each time (about 1 ms a draw here), so it is converted once, on an
// OffscreenCanvas, and the canvases (the stage and the job's card) copy the bitmap. Measured in
// bench/preview-display.ts at 10 frames/s on two canvases: decoder-bitmap-2d 7.3-7.8% of a core,
// createImageBitmap of a Blob (bitmap-2d) 8.8-9.9%, the VideoFrame drawn twice (decoder-2d)
// 7.9-8.9%. Where ImageDecoder is missing (a page that is not a secure context) or refuses the
// type, createImageBitmap of a Blob does it.
import type { PreviewView } from '@shared/ipc/contract';

/** What the store needs of an ImageBitmap (declared structurally: the Node tests have no DOM library). */
export interface PreviewBitmap {
  /** 0 once closed. */
  readonly width: number;
  readonly height: number;
  close(): void;
}

/** Decodes a frame's bytes; null when they are not a picture. */
export type BitmapDecoder = (frame: PreviewView) => Promise<PreviewBitmap | null>;

interface VideoFrameLike {
  readonly displayWidth: number;
  readonly displayHeight: number;
  close(): void;
}
interface ImageDecoderClass {
  new (init: { data: Uint8Array; type: string }): { decode(): Promise<{ image: VideoFrameLike }>; close(): void };
  isTypeSupported(type: string): Promise<boolean>;
}
interface ConverterContext {
  readonly canvas: { width: number; height: number; transferToImageBitmap(): PreviewBitmap };
  drawImage(image: VideoFrameLike, x: number, y: number): void;
}

const page = globalThis as unknown as {
  ImageDecoder?: ImageDecoderClass;
  OffscreenCanvas?: new (width: number, height: number) => { getContext(kind: '2d'): ConverterContext | null };
  createImageBitmap(blob: Blob): Promise<PreviewBitmap>;
};

/** Whether ImageDecoder takes a type, asked once per type. */
const decoderTakes = new Map<string, Promise<boolean>>();
/** The one OffscreenCanvas frames are converted on (its bitmap is handed over each time). */
let converter: ConverterContext | null | undefined;

function imageDecoderFor(mime: string): Promise<ImageDecoderClass | null> {
  const Decoder = page.ImageDecoder;
  if (typeof Decoder !== 'function' || typeof page.OffscreenCanvas !== 'function') return Promise.resolve(null);
  let takes = decoderTakes.get(mime);
  if (!takes) {
    takes = Decoder.isTypeSupported(mime).catch(() => false);
    decoderTakes.set(mime, takes);
  }
  return takes.then((yes) => (yes ? Decoder : null));
}

/** Draws the frame once on the converter and hands its pixels over as an ImageBitmap; null without a 2d context. */
function toBitmap(image: VideoFrameLike): PreviewBitmap | null {
  converter ??= page.OffscreenCanvas ? new page.OffscreenCanvas(image.displayWidth, image.displayHeight).getContext('2d') : null;
  if (!converter) return null;
  const { canvas } = converter;
  if (canvas.width !== image.displayWidth || canvas.height !== image.displayHeight) {
    canvas.width = image.displayWidth;
    canvas.height = image.displayHeight;
  }
  converter.drawImage(image, 0, 0);
  return canvas.transferToImageBitmap();
}

export const decodeBitmap: BitmapDecoder = async ({ bytes, mime }) => {
  try {
    const Decoder = await imageDecoderFor(mime);
    if (Decoder) {
      const decoder = new Decoder({ data: bytes, type: mime });
      let image: VideoFrameLike | null = null;
      try {
        image = (await decoder.decode()).image;
        const bitmap = toBitmap(image);
        if (bitmap) return bitmap;
      } finally {
        image?.close();
        decoder.close();
      }
    }
    return await page.createImageBitmap(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mime }));
  } catch {
    return null;
  }
};
