// Zoom and pan of the painting surface, as pure arithmetic: the image is drawn at
// screen = pan + image * zoom inside the surface (pan in CSS pixels from its top-left corner).

export interface Viewport {
  zoom: number;
  panX: number;
  panY: number;
}

export const ZOOM_MIN = 1 / 64;
export const ZOOM_MAX = 32;

function clampZoom(zoom: number): number {
  return Math.min(ZOOM_MAX, Math.max(ZOOM_MIN, zoom));
}

/** The whole image visible and centred, with a margin; never enlarged beyond 100 % to fit. */
export function fitViewport(imageW: number, imageH: number, viewW: number, viewH: number, margin = 16): Viewport {
  const availW = Math.max(1, viewW - 2 * margin);
  const availH = Math.max(1, viewH - 2 * margin);
  const zoom = clampZoom(Math.min(1, availW / imageW, availH / imageH));
  return { zoom, panX: (viewW - imageW * zoom) / 2, panY: (viewH - imageH * zoom) / 2 };
}

/** 100 %: one image pixel per CSS pixel, keeping the image point at the surface's centre in place. */
export function actualSize(current: Viewport, viewW: number, viewH: number): Viewport {
  return zoomAround(current, 1, viewW / 2, viewH / 2);
}

/** Sets the zoom, keeping the image point under (sx, sy) under it. */
export function zoomAround(current: Viewport, zoom: number, sx: number, sy: number): Viewport {
  const next = clampZoom(zoom);
  const ix = (sx - current.panX) / current.zoom;
  const iy = (sy - current.panY) / current.zoom;
  return { zoom: next, panX: sx - ix * next, panY: sy - iy * next };
}

/** Zoom factor for a wheel movement (Ctrl+wheel): about 10 % per notch, smooth for touchpads. */
export function wheelZoomFactor(deltaY: number, deltaMode: number): number {
  const pixels = deltaMode === 1 ? deltaY * 16 : deltaMode === 2 ? deltaY * 400 : deltaY;
  return Math.exp(-Math.max(-400, Math.min(400, pixels)) * 0.0011);
}

export function panBy(current: Viewport, dx: number, dy: number): Viewport {
  return { zoom: current.zoom, panX: current.panX + dx, panY: current.panY + dy };
}

/** The image point under a surface point. */
export function toImage(current: Viewport, sx: number, sy: number): { x: number; y: number } {
  return { x: (sx - current.panX) / current.zoom, y: (sy - current.panY) / current.zoom };
}
