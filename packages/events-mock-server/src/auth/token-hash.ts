import { hash, timingSafeEqual } from 'node:crypto';

/**
 * Tokens are kept only as SHA-256 digests (C8): the store and memory never hold a usable token, and a leaked
 * database cannot be replayed.
 */
export function hashToken(token: string): Buffer {
  // One-shot hash: no Hash object per request (a third cheaper than createHash on the hot path).
  return hash('sha256', token, 'buffer');
}

/**
 * Index key of a digest. Lookups go through a Map keyed by the first 8 bytes of the digest, then the whole
 * digest is compared with timingSafeEqual (C8: constant time). The Map lookup can only leak timing about a
 * prefix of a SHA-256 digest, which says nothing usable about the token itself (preimage resistance).
 */
export function digestKey(digest: Buffer): string {
  return digest.subarray(0, 8).toString('hex');
}

export function sameDigest(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
