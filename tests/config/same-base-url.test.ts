// sameBaseUrl decides which journaled jobs a client may settle and which profile a hot folder's
// server is: it must agree with how settings store an address, and never throw on an old one.
import { describe, expect, it } from 'vitest';
import { normaliseBaseUrl, sameBaseUrl } from '@main/config/settings';

describe('sameBaseUrl', () => {
  it('matches an address with itself as settings normalise it', () => {
    expect(sameBaseUrl('HTTP://Example.COM:8188/', normaliseBaseUrl('http://example.com:8188'))).toBe(true);
    expect(sameBaseUrl('https://cloud.example/api//', 'https://cloud.example/api')).toBe(true);
  });

  it('tells apart servers that differ in port, scheme or path', () => {
    expect(sameBaseUrl('http://127.0.0.1:8188', 'http://127.0.0.1:8189')).toBe(false);
    expect(sameBaseUrl('http://example.com', 'https://example.com')).toBe(false);
    expect(sameBaseUrl('https://example.com/a', 'https://example.com/b')).toBe(false);
  });

  it('compares an address that does not parse as written instead of throwing', () => {
    expect(sameBaseUrl('not a url/', 'not a url')).toBe(true);
    expect(sameBaseUrl('not a url', 'http://example.com')).toBe(false);
  });
});
