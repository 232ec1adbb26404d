// An uploaded image is shown under its original name (issue 21): names kept by input value, not
// kept when the server kept the name, the newest kept when there are too many, the masked copy
// named after its image.
import { describe, expect, it } from 'vitest';
import { maskedName } from '../../src/renderer/src/lib/mask/upload';
import { UploadNames } from '../../src/renderer/src/lib/stores/upload-names';

describe('original names of uploads', () => {
  it('shows the original name for a hashed value, the value itself otherwise', () => {
    const names = new UploadNames([]);
    names.remember('3f2a9c0d11e2b4a5.png', 'cat.png');
    expect(names.label('3f2a9c0d11e2b4a5.png')).toBe('cat.png');
    expect(names.original('3f2a9c0d11e2b4a5.png')).toBe('cat.png');
    expect(names.label('dog.png')).toBe('dog.png');
    expect(names.original('dog.png')).toBeNull();
  });

  it('remembers nothing when the server kept the name (a subfolder in front included)', () => {
    const names = new UploadNames([]);
    names.remember('pasted/cat.png', 'cat.png');
    names.remember('cat.png', 'cat.png');
    names.remember('x.png', undefined);
    expect(names.original('pasted/cat.png')).toBeNull();
    expect(names.original('cat.png')).toBeNull();
    expect(names.original('x.png')).toBeNull();
    // A local server's renamed copy is remembered.
    names.remember('cat (1).png', 'cat.png');
    expect(names.label('cat (1).png')).toBe('cat.png');
  });

  it('the latest name given to a value wins; the oldest are forgotten past the limit', () => {
    const names = new UploadNames([['h0.png', 'first.png']]);
    names.remember('h0.png', 'second.png');
    expect(names.label('h0.png')).toBe('second.png');
    for (let i = 1; i <= 500; i += 1) names.remember(`h${i}.png`, `n${i}.png`);
    expect(names.original('h0.png')).toBeNull();
    expect(names.label('h1.png')).toBe('n1.png');
    expect(names.label('h500.png')).toBe('n500.png');
  });

  it('names a masked copy after its image, once', () => {
    expect(maskedName('cat.png')).toBe('cat.png (masked)');
    expect(maskedName('cat.png (masked)')).toBe('cat.png (masked)');
  });
});
