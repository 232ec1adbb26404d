// The mask painter's canvas in the specs: reading what its overlay shows and painting on it with
// the mouse, in image pixels (the canvas box on screen includes zoom and pan).
import type { Page } from '@playwright/test';

// The project's Node type check has no DOM library: the page objects used are described here.
interface PageCanvas {
  width: number;
  height: number;
  getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } | null;
}

/** Alpha of the overlay canvas at an image pixel: the mask coverage the painter shows. */
export function overlayAlpha(page: Page, x: number, y: number): Promise<number> {
  return page
    .locator('canvas.overlay')
    .evaluate((el, [px, py]) => (el as unknown as PageCanvas).getContext('2d')?.getImageData(px!, py!, 1, 1).data[3] ?? -1, [x, y]);
}

/** Drags the mouse along a straight line given in image pixels. */
export async function paintLine(page: Page, from: { x: number; y: number }, to: { x: number; y: number }): Promise<void> {
  const canvas = page.locator('canvas.overlay');
  const box = await canvas.boundingBox();
  const size = await canvas.evaluate((el) => ({ w: (el as unknown as PageCanvas).width, h: (el as unknown as PageCanvas).height }));
  if (!box) throw new Error('the mask canvas is not visible');
  const sx = (p: { x: number; y: number }): [number, number] => [box.x + (p.x / size.w) * box.width, box.y + (p.y / size.h) * box.height];
  await page.mouse.move(...sx(from));
  await page.mouse.down();
  await page.mouse.move(...sx(to), { steps: 24 });
  await page.mouse.up();
}

/** Clicks an image pixel, with Shift held when asked (the painter's straight line). */
export async function clickAt(page: Page, at: { x: number; y: number }, options: { shift?: boolean } = {}): Promise<void> {
  const canvas = page.locator('canvas.overlay');
  const box = (await canvas.boundingBox())!;
  const size = await canvas.evaluate((el) => ({ w: (el as unknown as PageCanvas).width, h: (el as unknown as PageCanvas).height }));
  if (options.shift) await page.keyboard.down('Shift');
  await page.mouse.click(box.x + (at.x / size.w) * box.width, box.y + (at.y / size.h) * box.height);
  if (options.shift) await page.keyboard.up('Shift');
}
