// The painter's keyboard: Ctrl/Cmd+Z undo, Ctrl/Cmd+Shift+Z (and Ctrl+Y) redo, [ and ] brush size,
// B brush, E eraser, X invert, 0 fit, 1 actual size. Pure so it is tested without a DOM.
import { BRUSH_SIZE_MAX, BRUSH_SIZE_MIN } from './types';

export type PainterAction = 'undo' | 'redo' | 'size-down' | 'size-up' | 'brush' | 'eraser' | 'invert' | 'fit' | 'actual-size';

export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
}

export function actionForKey(event: KeyLike): PainterAction | null {
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  const command = event.ctrlKey || event.metaKey;
  if (event.altKey) return null;
  if (command) {
    if (key === 'z') return event.shiftKey ? 'redo' : 'undo';
    if (key === 'y' && !event.shiftKey) return 'redo';
    return null;
  }
  switch (key) {
    case '[':
      return 'size-down';
    case ']':
      return 'size-up';
    case 'b':
      return event.shiftKey ? null : 'brush';
    case 'e':
      return event.shiftKey ? null : 'eraser';
    case 'x':
      return event.shiftKey ? null : 'invert';
    case '0':
      return 'fit';
    case '1':
      return 'actual-size';
    default:
      return null;
  }
}

/** The next brush size for [ or ]: finer steps for small brushes, coarser for big ones. */
export function stepBrushSize(size: number, direction: -1 | 1): number {
  const step = size < 10 ? 1 : size < 50 ? 5 : 10;
  const next = direction > 0 ? Math.floor(size / step) * step + step : Math.ceil(size / step) * step - step;
  return Math.min(BRUSH_SIZE_MAX, Math.max(BRUSH_SIZE_MIN, next));
}
