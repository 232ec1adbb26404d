// Signed storage URLs for the cloud flavour's /api/view redirects:
//   <storageUrl>/b/<opaque>?expires=<epoch ms>&sig=<hex HMAC-SHA256 of "path\nexpires">
// The opaque part names the file; the secret is per instance. `revokeAll` (the expiry fault)
// retires the current secret: URLs signed with a retired secret are reported as expired, as a
// storage host reports a URL past its lifetime, while URLs signed afterwards work.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FileArea } from './files';
import { isFileArea } from './files';

export interface SignedTarget {
  area: FileArea;
  filename: string;
}

export type VerifyResult = { ok: true; target: SignedTarget } | { ok: false; reason: 'expired' | 'bad_signature' | 'malformed' };

function hmac(secret: Buffer, path: string, expires: string): Buffer {
  return createHmac('sha256', secret).update(`${path}\n${expires}`).digest();
}

export class UrlSigner {
  private secret = randomBytes(32);
  private readonly retired: Buffer[] = [];
  private readonly ttlMs: number;

  constructor(ttlMs: number) {
    this.ttlMs = ttlMs;
  }

  /** Path and query (no origin) of a fresh signed URL for a file. */
  sign(target: SignedTarget, now = Date.now()): string {
    const opaque = Buffer.from(JSON.stringify([target.area, target.filename]), 'utf8').toString('base64url');
    const path = `/b/${opaque}`;
    const expires = String(now + this.ttlMs);
    return `${path}?expires=${expires}&sig=${hmac(this.secret, path, expires).toString('hex')}`;
  }

  verify(path: string, expires: string | null, sig: string | null, now = Date.now()): VerifyResult {
    const match = /^\/b\/([A-Za-z0-9_-]+)$/.exec(path);
    if (!match || expires === null || sig === null || !/^\d+$/.test(expires) || !/^[0-9a-f]{64}$/.test(sig)) return { ok: false, reason: 'malformed' };
    const given = Buffer.from(sig, 'hex');
    const signedNow = timingSafeEqual(given, hmac(this.secret, path, expires));
    if (!signedNow) {
      const signedBefore = this.retired.some((old) => timingSafeEqual(given, hmac(old, path, expires)));
      return { ok: false, reason: signedBefore ? 'expired' : 'bad_signature' };
    }
    if (now > Number(expires)) return { ok: false, reason: 'expired' };
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(match[1]!, 'base64url').toString('utf8'));
    } catch {
      return { ok: false, reason: 'malformed' };
    }
    if (!Array.isArray(decoded) || decoded.length !== 2 || !isFileArea(decoded[0]) || typeof decoded[1] !== 'string') return { ok: false, reason: 'malformed' };
    return { ok: true, target: { area: decoded[0], filename: decoded[1] } };
  }

  /** Every URL handed out so far stops working (reported as expired). */
  revokeAll(): void {
    this.retired.push(this.secret);
    this.secret = randomBytes(32);
  }
}
