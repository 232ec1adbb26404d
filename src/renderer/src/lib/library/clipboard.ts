// "Copy image": clipboards take PNG (the one image type every platform's clipboard API accepts),
// so other formats are decoded by the browser and re-encoded through a canvas first.

export async function pngBlobOf(bytes: Uint8Array, mime: string): Promise<Blob> {
  const source = new Blob([bytes as BlobPart], { type: mime });
  if (mime === 'image/png') return source;
  const bitmap = await createImageBitmap(source).catch(() => {
    throw new Error(`the image (${mime}) could not be decoded.`);
  });
  try {
    const canvas = document.createElement('canvas');
    canvas.width = bitmap.width;
    canvas.height = bitmap.height;
    const context = canvas.getContext('2d');
    if (!context) throw new Error('no canvas is available to convert the image.');
    context.drawImage(bitmap, 0, 0);
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('the image could not be converted to PNG.'))), 'image/png'),
    );
  } finally {
    bitmap.close();
  }
}

/**
 * Call straight from the click: the clipboard write starts while the click still counts as the
 * user's gesture, and the PNG (which needs a round trip to main) is handed over as a promise.
 */
export async function copyImageToClipboard(load: () => Promise<{ bytes: Uint8Array; mime: string }>): Promise<void> {
  if (typeof ClipboardItem === 'undefined' || !navigator.clipboard?.write) throw new Error('this window cannot write images to the clipboard.');
  const png = load().then(({ bytes, mime }) => pngBlobOf(bytes, mime));
  // Without this the promise's failure would also surface as an unhandled rejection.
  png.catch(() => undefined);
  try {
    await navigator.clipboard.write([new ClipboardItem({ 'image/png': png })]);
  } catch (error) {
    // The real cause (the image could not be read or converted) beats the clipboard's generic error.
    await png;
    throw error;
  }
}
