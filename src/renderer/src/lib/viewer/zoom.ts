// The viewer's zoom and pan: "fit" scales the picture to the stage, "100%" shows one image pixel per
// screen pixel, the wheel zooms about the pointer, dragging pans.

export interface View {
  scale: number;
  /** Offset of the picture's centre from the stage's centre, in screen pixels. */
  x: number;
  y: number;
}

export const MIN_SCALE = 0.05;
export const MAX_SCALE = 32;

export function fitScale(image: { width: number; height: number }, stage: { width: number; height: number }): number {
  if (image.width <= 0 || image.height <= 0 || stage.width <= 0 || stage.height <= 0) return 1;
  return Math.min(1, stage.width / image.width, stage.height / image.height);
}

/** Zooms by `factor` keeping the image point under (px, py) (relative to the stage centre) in place. */
export function zoomAbout(view: View, factor: number, px: number, py: number): View {
  const scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, view.scale * factor));
  const k = scale / view.scale;
  return { scale, x: px - (px - view.x) * k, y: py - (py - view.y) * k };
}
