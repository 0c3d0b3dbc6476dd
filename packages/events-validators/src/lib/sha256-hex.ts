import { addProblem, type EventProblems, formatMessage, MessageCache, pathOf } from './problems.js';

const cache = new MessageCache();

// 1: lower-case hex digit, 2: upper-case hex digit, 0: anything else (ASCII); one table lookup per character.
const HEX = new Uint8Array(128);
for (let c = 48; c <= 57; c++) HEX[c] = 1;
for (let c = 97; c <= 102; c++) HEX[c] = 1;
for (let c = 65; c <= 70; c++) HEX[c] = 2;

/**
 * Rule kind `sha256-hex`: 0 when `s` is not 64 hex characters, 1 when it is a lower-case digest, 2 when it is
 * a digest with upper-case letters (accepted and stored lower-cased). A character loop, no regular expression.
 */
export function hexState(s: string): 0 | 1 | 2 {
  if (s.length !== 64) return 0;
  let seen = 0;
  for (let k = 0; k < 64; k++) {
    const c = s.charCodeAt(k);
    const t = c < 128 ? HEX[c]! : 0;
    if (t === 0) return 0;
    seen |= t;
  }
  return seen & 2 ? 2 : 1;
}

/** Reports `hash_dropped`; the value is never quoted back (raw personal data, C4). */
export function hashDropped(o: EventProblems, p: string, i: number, name: string, j: number): void {
  const path = pathOf(p, i, name, j);
  addProblem(o, 'hash_dropped', path, cache.get(path) ?? cache.set(path, formatMessage('hash_dropped', { path })));
}
