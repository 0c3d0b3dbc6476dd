import { type EventProblems, formatMessage, MessageCache, pathOf, RecentProblems } from './problems.js';

const cache = new MessageCache();
/** The dropped digests met last (same field, same item index): a repeat builds no path. */
const recent = new RecentProblems();

// Per UTF-16 code unit: bit 0 = hex digit, bit 1 = upper-case A-F. A full-range table needs no range test.
const HEX = new Uint8Array(65536);
for (let c = 48; c <= 57; c++) HEX[c] = 1;
for (let c = 97; c <= 102; c++) HEX[c] = 1;
for (let c = 65; c <= 70; c++) HEX[c] = 3;

/**
 * Rule kind `sha256-hex`: 0 when `s` is not 64 hex characters, 1 when it is a lower-case digest, 2 when it is
 * a digest with upper-case letters (accepted and stored lower-cased). A character loop without branches,
 * four characters per turn; measured against a regular expression (slower) and against encoding into a
 * buffer and checking four bytes per word (no faster once the encoder call is counted).
 */
export function hexState(s: string): 0 | 1 | 2 {
  if (s.length !== 64) return 0;
  let all = 1;
  let any = 0;
  for (let k = 0; k < 64; k += 4) {
    const a = HEX[s.charCodeAt(k)]!;
    const b = HEX[s.charCodeAt(k + 1)]!;
    const c = HEX[s.charCodeAt(k + 2)]!;
    const d = HEX[s.charCodeAt(k + 3)]!;
    all &= a & b & c & d;
    any |= a | b | c | d;
  }
  return all === 0 ? 0 : any & 2 ? 2 : 1;
}

// ---------------------------------------------------------------------------------------------------------
// Within one batch the same digest comes back event after event (the country, state, city, zip or gender of
// the advertiser's customers), each time as another string. A digest found well-formed and lower-case is
// kept in a small table, by the nibbles of its first three characters; a later digest equal to the one kept
// in its slot is known good after one string comparison, which V8 does a word at a time, instead of a loop
// over its 64 characters. Entries count only for the batch that made them (`forgetDigests`), so nothing is
// carried from one request to the next, and the answer never depends on the table: it only skips a check
// whose outcome an equal string already had.

const NIBBLE = new Uint8Array(65536);
for (let c = 48; c <= 57; c++) NIBBLE[c] = c - 48;
for (let c = 97; c <= 102; c++) NIBBLE[c] = c - 87;
const SEEN_SIZE = 4096;
const seen: (string | undefined)[] = new Array<string | undefined>(SEEN_SIZE).fill(undefined);
const seenBatch = new Int32Array(SEEN_SIZE);
let batch = 1;

/** Starts a new batch: digests kept so far no longer count. */
export function forgetDigests(): void {
  batch = (batch + 1) | 0;
}

/**
 * `hexState` with the digests of this batch already found good (see above): generated validators call
 * this; the answer is always hexState's.
 */
export function digestState(s: string): 0 | 1 | 2 {
  if (s.length !== 64) return 0;
  const k = (NIBBLE[s.charCodeAt(0)]! << 8) | (NIBBLE[s.charCodeAt(1)]! << 4) | NIBBLE[s.charCodeAt(2)]!;
  if (seenBatch[k] === batch && seen[k] === s) return 1;
  const h = hexState(s);
  if (h === 1) {
    seen[k] = s;
    seenBatch[k] = batch;
  }
  return h;
}

/** Reports `hash_dropped`; the value is never quoted back (raw personal data, C4). */
export function hashDropped(o: EventProblems, p: string, i: number, name: string, j: number): void {
  if (recent.add(o, p, i, name, j)) return;
  const path = pathOf(p, i, name, j);
  const message = cache.get(path) ?? cache.set(path, formatMessage('hash_dropped', { path }));
  recent.remember(o, p, i, name, j, 'hash_dropped', path, message);
}
