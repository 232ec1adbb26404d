// The one extension <-> MIME table (src/shared/media-types.ts) and the library file names built on it.
import { expect, it } from 'vitest';
import { libraryFileName } from '@main/library/publish-staged';
import { UNKNOWN_MIME, extensionForMime, extensionOf, mimeForFileName } from '@shared/media-types';

it('names the type of a file from its extension, in any case, and nothing for an unknown one', () => {
  expect(mimeForFileName('a.PNG')).toBe('image/png');
  expect(mimeForFileName('/out/2026/clip.final.webm')).toBe('video/webm');
  expect(mimeForFileName('C:\\out\\photo.JPEG')).toBe('image/jpeg');
  expect(mimeForFileName('song.opus')).toBe('audio/ogg');
  expect(mimeForFileName('result.json')).toBe('application/json');
  expect(mimeForFileName('noext')).toBeNull();
  expect(mimeForFileName('dir.d/noext')).toBeNull();
  expect(mimeForFileName('archive.xyz')).toBeNull();
  expect(extensionOf('dir.d/noext')).toBeNull();
  expect(UNKNOWN_MIME).toBe('application/octet-stream');
});

it('gives each type its usual extension', () => {
  expect(extensionForMime('image/jpeg')).toBe('jpg');
  expect(extensionForMime('image/png')).toBe('png');
  expect(extensionForMime('video/mp4')).toBe('mp4');
  expect(extensionForMime('Audio/Mpeg; charset=binary')).toBe('mp3');
  expect(extensionForMime('application/x-unknown')).toBeNull();
  expect(extensionForMime('')).toBeNull();
});

it('adds the probed extension to a library file name only when the name has no media extension', () => {
  expect(libraryFileName('output', null, 'image/png')).toBe('output.png');
  expect(libraryFileName('clip', 'DemoVideo', 'video/webm')).toBe('clip.webm');
  expect(libraryFileName('photo.jpeg', null, 'image/jpeg')).toBe('photo.jpeg');
  // A media extension that disagrees with the bytes is the server's name: kept as it is.
  expect(libraryFileName('picture.webp', null, 'image/png')).toBe('picture.webp');
  // A text extension on image bytes gets the image's extension too.
  expect(libraryFileName('notes.txt', null, 'image/png')).toBe('notes.txt.png');
  expect(libraryFileName('blob', null, null)).toBe('blob');
  expect(libraryFileName('blob', null, 'application/x-unknown')).toBe('blob');
});
