// Media probing from file headers: image sizes (PNG, JPEG, WebP in its three forms, GIF), audio
// and video durations (WAV, FLAC, MP4 mvhd, the demo's real WebM clip), and the fallbacks.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { sineWav } from '@main/demo/nodes/wav';
import { guessKind, probeMedia } from '@main/library/media-info';

function png(width: number, height: number): Buffer {
  return PNG.sync.write(new PNG({ width, height }));
}

function riff(form: string, chunk: string, body: number[]): Buffer {
  const data = Buffer.from(body);
  const out = Buffer.alloc(20 + data.length);
  out.write('RIFF', 0, 'latin1');
  out.writeUInt32LE(out.length - 8, 4);
  out.write(form, 8, 'latin1');
  out.write(chunk, 12, 'latin1');
  out.writeUInt32LE(data.length, 16);
  data.copy(out, 20);
  return out;
}

function box(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body]);
}

describe('probeMedia', () => {
  it('reads PNG and JPEG sizes from their headers', () => {
    expect(probeMedia(png(7, 5), 100, 'a.png', null)).toEqual({ kind: 'image', mime: 'image/png', width: 7, height: 5, durationMs: null });
    const jpg = jpeg.encode({ width: 9, height: 4, data: Buffer.alloc(9 * 4 * 4, 128) }, 80).data;
    expect(probeMedia(jpg, jpg.length, 'b.jpg', null)).toMatchObject({ kind: 'image', mime: 'image/jpeg', width: 9, height: 4 });
  });

  it('reads the three WebP layouts and GIF', () => {
    // VP8X: 24-bit (width-1) and (height-1) at 24 and 27.
    const vp8x = riff('WEBP', 'VP8X', [0, 0, 0, 0, 199, 1, 0, 99, 0, 0]);
    expect(probeMedia(vp8x, vp8x.length, 'x', null)).toMatchObject({ mime: 'image/webp', width: 456, height: 100 });
    // VP8L: signature 0x2f, then 14 bits (width-1), 14 bits (height-1).
    const bits = (31 & 0x3fff) | ((15 & 0x3fff) << 14);
    const vp8l = riff('WEBP', 'VP8L', [0x2f, bits & 0xff, (bits >> 8) & 0xff, (bits >> 16) & 0xff, (bits >> 24) & 0xff]);
    expect(probeMedia(vp8l, vp8l.length, 'x', null)).toMatchObject({ width: 32, height: 16 });
    // VP8 (lossy): frame tag, start code 9d 01 2a, then 14-bit width and height.
    const vp8 = riff('WEBP', 'VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, 64, 0, 48, 0]);
    expect(probeMedia(vp8, vp8.length, 'x', null)).toMatchObject({ width: 64, height: 48 });
    const gif = Buffer.from([...Buffer.from('GIF89a', 'latin1'), 10, 0, 3, 0, 0, 0]);
    expect(probeMedia(gif, gif.length, 'x.gif', null)).toMatchObject({ kind: 'image', mime: 'image/gif', width: 10, height: 3 });
  });

  it('takes a WAV duration from fmt and data, also when the data size was left unset', () => {
    const wav = Buffer.from(sineWav(1.5, 440));
    expect(probeMedia(wav.subarray(0, 4096), wav.length, 'tone.wav', null)).toEqual({
      kind: 'audio',
      mime: 'audio/wav',
      width: null,
      height: null,
      durationMs: 1500,
    });
    const streamed = Buffer.from(wav);
    streamed.writeUInt32LE(0xffffffff, 40);
    expect(probeMedia(streamed, streamed.length, 'tone.wav', null).durationMs).toBe(1500);
  });

  it("reads the demo clip's WebM duration and frame size", () => {
    const clip = readFileSync(resolve(import.meta.dirname, '../../resources/demo/demo-clip.webm'));
    expect(probeMedia(clip, clip.length, 'clip.webm', null)).toEqual({ kind: 'video', mime: 'video/webm', width: 64, height: 64, durationMs: 2000 });
  });

  it('reads FLAC STREAMINFO and an MP4 mvhd that comes first', () => {
    const flac = Buffer.alloc(42);
    flac.write('fLaC', 0, 'latin1');
    flac[4] = 0x80; // last block, type 0 (STREAMINFO)
    flac.writeUIntBE(34, 5, 3);
    // 20 bits rate, 3 bits channels-1, 5 bits bits-per-sample-1, 36 bits total samples.
    const packed = (44100n << 44n) | (1n << 41n) | (15n << 36n) | 88200n;
    flac.writeBigUInt64BE(packed, 18);
    expect(probeMedia(flac, flac.length, 'a.flac', null)).toMatchObject({ kind: 'audio', mime: 'audio/flac', durationMs: 2000 });

    const ftyp = box('ftyp', Buffer.from('isom\0\0\0\0isom', 'latin1'));
    const mvhdBody = Buffer.alloc(100);
    mvhdBody.writeUInt32BE(1000, 12); // timescale
    mvhdBody.writeUInt32BE(3500, 16); // duration
    const mp4 = Buffer.concat([ftyp, box('moov', box('mvhd', mvhdBody))]);
    expect(probeMedia(mp4, mp4.length, 'a.mp4', null)).toMatchObject({ kind: 'video', mime: 'video/mp4', durationMs: 3500 });
    // moov at the end (not in the probed head): the type is known, the duration is not.
    expect(probeMedia(ftyp, 10_000_000, 'a.mp4', null)).toMatchObject({ kind: 'video', durationMs: null });
  });

  it('trusts bytes over labels, and falls back to the content type, then the name', () => {
    expect(probeMedia(png(2, 2), 50, 'clip.mp4', 'video/mp4')).toMatchObject({ kind: 'image', mime: 'image/png' });
    const unknown = Buffer.from('not a known format');
    expect(probeMedia(unknown, unknown.length, 'scene.glb', null)).toMatchObject({ kind: 'model', mime: 'model/gltf-binary' });
    expect(probeMedia(unknown, unknown.length, 'noext', 'audio/x-custom; q=1')).toMatchObject({ kind: 'audio', mime: 'audio/x-custom' });
    expect(probeMedia(unknown, unknown.length, 'noext', 'application/octet-stream')).toEqual({
      kind: 'other',
      mime: null,
      width: null,
      height: null,
      durationMs: null,
    });
    // Truncated headers give what they can, never throw.
    expect(probeMedia(png(3, 3).subarray(0, 12), 12, 'p.png', null)).toMatchObject({ kind: 'image', width: null });
    expect(probeMedia(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00]), 5, 'j.jpg', null)).toMatchObject({ kind: 'image', width: null });
  });

  it('guesses the kind before download from the name, then the output key', () => {
    expect(guessKind('images', 'a.png')).toBe('image');
    expect(guessKind('gifs', 'a.bin')).toBe('image');
    expect(guessKind('videos', 'clip')).toBe('video');
    expect(guessKind('images', 'clip.webm')).toBe('video');
    expect(guessKind('audio', 'x')).toBe('audio');
    expect(guessKind('3d', 'mesh')).toBe('model');
    expect(guessKind('text', 'x')).toBe('other');
  });
});
