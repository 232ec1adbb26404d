import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { safeBaseName } from '@main/service/filenames';

describe('safeBaseName', () => {
  it('keeps ordinary names', () => {
    expect(safeBaseName('ComfyUI_00001_.png', 'x')).toBe('ComfyUI_00001_.png');
    expect(safeBaseName('sample (1).png', 'x')).toBe('sample (1).png');
    expect(safeBaseName('été – 日本.webp', 'x')).toBe('été – 日本.webp');
  });

  it('reduces traversal and separators to the last component', () => {
    expect(safeBaseName('../../etc/passwd', 'x')).toBe('passwd');
    expect(safeBaseName('..\\..\\Windows\\win.ini', 'x')).toBe('win.ini');
    expect(safeBaseName('sub/dir/out.png', 'x')).toBe('out.png');
    expect(safeBaseName('..', 'fallback.png')).toBe('fallback.png');
    expect(safeBaseName('.', 'fallback.png')).toBe('fallback.png');
    expect(safeBaseName('a/..', 'fb')).toBe('fb');
    expect(safeBaseName('evil..png', 'x')).toBe('evil.png');
    expect(safeBaseName('...hidden', 'x')).toBe('hidden');
    for (const name of ['../x', '..', 'a/../../b', '/abs/path.png', 'C:\\x\\y.png', 'x/']) {
      const out = safeBaseName(name, 'fallback');
      expect(out).not.toMatch(/[/\\]/);
      expect(out).not.toContain('..');
      expect(path.dirname(path.join('/dest', out))).toBe('/dest');
    }
  });

  it('replaces control characters and characters Windows forbids', () => {
    expect(safeBaseName('a\u0000b\nc\u007f.png', 'x')).toBe('a_b_c_.png');
    expect(safeBaseName('what?<>:"|*.png', 'x')).toBe('what_______.png');
    expect(safeBaseName('evil\u202Egnp.exe', 'x')).toBe('evil_gnp.exe');
  });

  it('defuses Windows reserved device names, with or without extension', () => {
    for (const name of ['CON', 'con', 'PRN.txt', 'aux.png', 'NUL', 'nul.tar.gz', 'COM1', 'com9.png', 'LPT1', 'lpt9.jpg']) {
      const out = safeBaseName(name, 'x');
      expect(out.startsWith('_')).toBe(true);
      expect(out.slice(1).toLowerCase()).toBe(name.toLowerCase());
    }
    expect(safeBaseName('console.png', 'x')).toBe('console.png');
    expect(safeBaseName('COM10.png', 'x')).toBe('COM10.png');
  });

  it('strips trailing dots and spaces', () => {
    expect(safeBaseName('name.png. . ', 'x')).toBe('name.png');
    expect(safeBaseName('name   ', 'x')).toBe('name');
  });

  it('limits the length in UTF-8 bytes, keeping the extension', () => {
    const long = `${'é'.repeat(300)}.png`;
    const out = safeBaseName(long, 'x');
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(200);
    expect(out.endsWith('.png')).toBe(true);
    expect(out).not.toContain('\uFFFD');
    const emoji = safeBaseName(`${'😀'.repeat(100)}.jpg`, 'x');
    expect(Buffer.byteLength(emoji)).toBeLessThanOrEqual(200);
    expect([...emoji.replace('.jpg', '')].every((c) => c === '😀')).toBe(true);
  });

  it('is never empty: falls back to the fallback, then to "file"', () => {
    expect(safeBaseName('', 'out.png')).toBe('out.png');
    expect(safeBaseName('   ', 'out.png')).toBe('out.png');
    expect(safeBaseName('///', 'out.png')).toBe('out.png');
    expect(safeBaseName('', '')).toBe('file');
    expect(safeBaseName('..', '../..')).toBe('file');
  });
});
