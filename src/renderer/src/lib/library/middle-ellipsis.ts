// Long file names shortened in the middle, so both the start and the extension (and the counter
// before it, "Flowdeck_00012_.png") stay readable on a tile.

/** `name` cut to at most `max` characters (code points, so an emoji is never split) with "…" in the middle. */
export function middleEllipsis(name: string, max: number): string {
  const chars = [...name];
  if (chars.length <= max || max < 3) return name;
  const keep = max - 1;
  const tail = Math.floor(keep / 2);
  const head = keep - tail;
  return `${chars.slice(0, head).join('')}…${chars.slice(chars.length - tail).join('')}`;
}
