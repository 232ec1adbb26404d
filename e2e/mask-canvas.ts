// The mask painter's canvas in the specs: reading what its overlay shows and painting on it with
// the mouse, in image pixels (the canvas box on screen includes zoom and pan); and reading the
// alpha of a picture (a masked thumbnail).
import type { Locator, Page } from '@playwright/test';

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

/** The page's <img> and a canvas, as far as imageAlpha uses them. */
interface PageImage {
  complete: boolean;
  naturalWidth: number;
  naturalHeight: number;
  ownerDocument: {
    createElement(tag: 'canvas'): {
      width: number;
      height: number;
      getContext(kind: '2d'): {
        drawImage(image: PageImage, x: number, y: number): void;
        getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> };
      } | null;
    };
  };
}

/** The alpha of an <img> at a point given as fractions of its natural size (0 to 255); -1 while not loaded. */
export function imageAlpha(image: Locator, fx: number, fy: number): Promise<number> {
  return image.evaluate(
    (el, [x, y]) => {
      const img = el as unknown as PageImage;
      if (!img.complete || img.naturalWidth === 0) return -1;
      const canvas = img.ownerDocument.createElement('canvas');
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      const context = canvas.getContext('2d');
      if (!context) return -1;
      context.drawImage(img, 0, 0);
      return context.getImageData(Math.floor(x! * img.naturalWidth), Math.floor(y! * img.naturalHeight), 1, 1).data[3]!;
    },
    [fx, fy],
  );
}
