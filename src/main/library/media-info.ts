// What a downloaded file is, from its first bytes: the media kind and type, an image's size, an
// audio or video file's duration when the header tells it. The bytes decide; the server's content
// type and the file name's extension are only fallbacks (a server may label anything "image/png").
import { ebmlInfo, flacInfo, isEbml, isFlac, isIsoMedia, isoBrand, isoInfo, isWav, wavInfo } from './media-audio-video';
import { imageDimensions, isBmp, isGif, isJpeg, isPng, isWebp } from './media-images';
import { mimeForFileName } from '@shared/media-types';
import type { MediaKind } from './types';

/** How much of a file's start is read to probe it (JPEG EXIF blocks can push SOF past 64 KB). */
export const PROBE_BYTES = 256 * 1024;

export interface MediaInfo {
  kind: MediaKind;
  mime: string | null;
  width: number | null;
  height: number | null;
  durationMs: number | null;
}

export function kindOfMime(mime: string | null): MediaKind {
  if (!mime) return 'other';
  const top = mime.split('/')[0]?.toLowerCase();
  if (top === 'image' || top === 'video' || top === 'audio' || top === 'model') return top;
  return 'other';
}

/** The kind guessed before any byte is seen: from the output key, then the name. */
export function guessKind(outputKey: string, fileName: string): MediaKind {
  const fromName = kindOfMime(mimeForFileName(fileName));
  if (fromName !== 'other') return fromName;
  const key = outputKey.toLowerCase();
  if (key === 'images' || key === 'gifs') return 'image';
  if (key === 'video' || key === 'videos') return 'video';
  if (key === 'audio') return 'audio';
  if (key === '3d') return 'model';
  return 'other';
}

function usableContentType(contentType: string | null): string | null {
  const mime = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (mime === '' || mime === 'application/octet-stream' || mime === 'binary/octet-stream') return null;
  return /^[a-z]+\/[a-z0-9.+-]+$/.test(mime) ? mime : null;
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  if (at + length > bytes.length) return '';
  return String.fromCharCode(...bytes.subarray(at, at + length));
}

function includesAscii(bytes: Uint8Array, text: string): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(text, 0, 'latin1');
}

function info(kind: MediaKind, mime: string, extra: Partial<MediaInfo> = {}): MediaInfo {
  return { kind, mime, width: null, height: null, durationMs: null, ...extra };
}

function image(mime: string, head: Uint8Array): MediaInfo {
  const size = imageDimensions(head);
  return info('image', mime, size ? { width: size.width, height: size.height } : {});
}

/** Probes `head` (the first PROBE_BYTES of a file of `fileSize` bytes). */
export function probeMedia(head: Uint8Array, fileSize: number, fileName: string, contentType: string | null): MediaInfo {
  if (isPng(head)) return image('image/png', head);
  if (isJpeg(head)) return image('image/jpeg', head);
  if (isWebp(head)) return image('image/webp', head);
  if (isGif(head)) return image('image/gif', head);
  if (isWav(head)) return info('audio', 'audio/wav', { durationMs: wavInfo(head, fileSize).durationMs });
  if (isFlac(head)) return info('audio', 'audio/flac', { durationMs: flacInfo(head).durationMs });
  if (isEbml(head)) {
    const av = ebmlInfo(head);
    const webm = av.docType === 'webm' || (!av.docType && mimeForFileName(fileName) === 'video/webm');
    if (av.hasVideo === false) return info('audio', webm ? 'audio/webm' : 'audio/x-matroska', { durationMs: av.durationMs });
    return info('video', webm ? 'video/webm' : 'video/x-matroska', {
      durationMs: av.durationMs,
      width: av.video?.width ?? null,
      height: av.video?.height ?? null,
    });
  }
  if (isIsoMedia(head)) {
    const brand = isoBrand(head);
    const durationMs = isoInfo(head).durationMs;
    if (brand === 'M4A ' || brand === 'M4B ') return info('audio', 'audio/mp4', { durationMs });
    if (brand === 'qt  ') return info('video', 'video/quicktime', { durationMs });
    if (brand === 'avif' || brand === 'avis') return info('image', 'image/avif');
    if (brand === 'heic' || brand === 'heix' || brand === 'mif1') return info('image', 'image/heic');
    return info('video', 'video/mp4', { durationMs });
  }
  if (ascii(head, 0, 4) === 'OggS') {
    const isVideo = includesAscii(head.subarray(0, 512), 'theora');
    return info(isVideo ? 'video' : 'audio', isVideo ? 'video/ogg' : 'audio/ogg');
  }
  if (ascii(head, 0, 3) === 'ID3' || (head.length >= 2 && head[0] === 0xff && (head[1]! & 0xe6) === 0xe2)) return info('audio', 'audio/mpeg');
  if (ascii(head, 0, 4) === 'glTF') return info('model', 'model/gltf-binary');
  if (isBmp(head)) return image('image/bmp', head);
  const mime = usableContentType(contentType) ?? mimeForFileName(fileName);
  return { kind: kindOfMime(mime), mime, width: null, height: null, durationMs: null };
}
