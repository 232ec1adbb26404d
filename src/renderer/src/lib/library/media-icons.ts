// Type icons for tiles without a thumbnail (video, audio, other files, images still downloading
// or whose thumbnail failed): small inline SVGs as data URLs, so the tile is still an <img> whose
// alternative text is the file name, and nothing is fetched for them.
import type { LibraryItemView } from '@shared/ipc/library-contract';

type Kind = LibraryItemView['mediaKind'];

const GLYPHS: Record<Kind, string> = {
  // A film frame with a play triangle.
  video: '<rect x="14" y="20" width="52" height="40" rx="4" fill="none" stroke="#7a8599" stroke-width="4"/><path d="M35 30v20l16-10z" fill="#7a8599"/>',
  // A note.
  audio: '<path d="M34 22v28a8 8 0 1 0 4 7V32l16-4v16a8 8 0 1 0 4 7V18z" fill="#7a8599"/>',
  // A landscape.
  image:
    '<rect x="14" y="20" width="52" height="40" rx="4" fill="none" stroke="#7a8599" stroke-width="4"/><path d="M20 54l14-16 10 11 6-6 10 11z" fill="#7a8599"/><circle cx="54" cy="31" r="4" fill="#7a8599"/>',
  // A cube.
  model: '<path d="M40 14l24 12v28L40 66 16 54V26z M16 26l24 12 24-12 M40 38v28" fill="none" stroke="#7a8599" stroke-width="4" stroke-linejoin="round"/>',
  // A page with a folded corner.
  other: '<path d="M24 14h22l12 12v40H24z M46 14v12h12" fill="none" stroke="#7a8599" stroke-width="4" stroke-linejoin="round"/>',
};

const cache = new Map<Kind | 'placeholder', string>();

export function mediaIconUrl(kind: Kind): string {
  return svgUrl(kind, GLYPHS[kind]);
}

/**
 * What a tile shows while its item is not loaded yet or the grid flies past: nothing (transparent,
 * so the tile's own background shows), and one URL for every tile, so a recycled tile's picture
 * does not change (no load, no decode) while scrolling.
 */
export function placeholderIconUrl(): string {
  return svgUrl('placeholder', null);
}

function svgUrl(key: Kind | 'placeholder', glyph: string | null): string {
  let url = cache.get(key);
  if (!url) {
    const content = glyph === null ? '' : `<rect width="80" height="80" fill="#e3e7ee"/>${glyph}`;
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 80 80">${content}</svg>`;
    url = `data:image/svg+xml,${encodeURIComponent(svg)}`;
    cache.set(key, url);
  }
  return url;
}
