import { isUtf8 } from 'node:buffer';
import { invalidUtf8Offset, type ScanLimits, type ScanProblem } from './json-scan.js';

/** One element of the top-level `data` array as the light scan sees it. */
export interface LightElement {
  start: number;
  end: number;
  /** Member names in the element, all objects counted: JSON.parse keeps fewer keys when a name repeats. */
  members: number;
  /** Whether every number reads the same in any JSON reader (as DataElement.exactNumbers). */
  exactNumbers: boolean;
}

export type LightScan =
  | {
      ok: true;
      /** null when the body is not `{ ... "data": [ ... ] ... }`. */
      elements: LightElement[] | null;
      /** A `\u` escape occurs: the full scan decides on surrogates (C36). */
      unicodeEscapes: boolean;
    }
  | ({ ok: false } & ScanProblem);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/**
 * The byte checks of C35-C37 in one flat pass, the cheap form of `scanBody` (issue 25): well-formed UTF-8
 * (natively), nesting depth and members per object within the limits, top-level names given once, and for
 * each element of `data` its bytes, its count of member names and whether its numbers read alike. It does
 * not compare names inside events: a repeated one shows as an element whose parsed value holds fewer keys
 * than `members`, and `scanBody` then names its path. Strings are skipped without decoding; a body with
 * `\u` escapes is flagged for the full scan, which checks surrogates. On anything that is not JSON it still
 * answers ok and JSON.parse says what is wrong.
 */
export function scanLight(b: Buffer, limits: ScanLimits): LightScan {
  if (!isUtf8(b)) return { ok: false, kind: 'utf8', offset: invalidUtf8Offset(b) };
  return scanBytes(new Uint8Array(b.buffer, b.byteOffset, b.byteLength), b, limits);
}

let scratch = { isObject: new Uint8Array(0), members: new Int32Array(0) };

function scanBytes(b: Uint8Array, search: Buffer, limits: ScanLimits): LightScan {
  const n = b.length;
  const maxDepth = limits.maxDepth;
  const maxMembers = limits.maxMembers;
  // Per open container: 1 object, 0 array; the members of each open object so far. Kept between calls, so a
  // 1-event body allocates nothing for them.
  if (scratch.members.length < maxDepth + 2)
    scratch = { isObject: new Uint8Array(maxDepth + 2), members: new Int32Array(maxDepth + 2) };
  const { isObject, members } = scratch;
  let depth = 0;
  const strings: StringState = { search, backslash: -1, unicodeEscapes: false };
  let lastString = 0;
  // Top-level names: a Set only when the body has more than one.
  let topNames: string[] | null = null;
  // The data array: the depth of its elements (2) while inside it, and the element being read.
  let inData = false;
  let dataSeen = false;
  let dataIsArray = false;
  let expectDataValue = false;
  let elements: LightElement[] | null = null;
  let elStart = -1;
  let elMembers = 0;
  let elExact = true;
  let shapeOk = true;

  let i = 0;
  while (i < n) {
    const c = b[i] as number;
    if (c === QUOTE) {
      const start = i;
      i = stringEnd(b, i + 1, n, strings) + 1;
      lastString = start;
      if (depth === 2 && inData && elStart < 0) {
        elStart = start;
        elMembers = 0;
        elExact = true;
      }
      continue;
    }
    if (c === COLON) {
      if (depth > 0 && isObject[depth] === 1) {
        const m = (members[depth] as number) + 1;
        members[depth] = m;
        if (m > maxMembers) return { ok: false, kind: 'members', offset: lastString, max: maxMembers };
        if (elStart >= 0) elMembers++;
        if (depth === 1) {
          // A top-level name: decoded (rare: a body has a few), compared, and `data` recognised.
          const name = Buffer.from(b.buffer, b.byteOffset + lastString, i - lastString)
            .toString('utf8')
            .trimEnd();
          let decoded: string;
          try {
            decoded = JSON.parse(name) as string;
          } catch {
            decoded = name;
          }
          topNames ??= [];
          if (topNames.includes(decoded)) return { ok: false, kind: 'duplicate_top', key: decoded };
          topNames.push(decoded);
          expectDataValue = decoded === 'data';
          if (expectDataValue) dataSeen = true;
        }
      }
      i++;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (inData && depth === 2 && elStart < 0) {
        elStart = i;
        elMembers = 0;
        elExact = true;
      }
      depth++;
      if (depth > maxDepth) return { ok: false, kind: 'depth', offset: i, max: maxDepth };
      isObject[depth] = c === OPEN_OBJECT ? 1 : 0;
      members[depth] = 0;
      if (depth === 2 && expectDataValue) {
        expectDataValue = false;
        if (c === OPEN_ARRAY) {
          inData = true;
          dataIsArray = true;
          elements = [];
        }
      }
      i++;
      continue;
    }
    if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth === 2 && inData) {
        // The end of the data array: an element still open is a scalar one.
        if (elStart >= 0 && elements !== null)
          elements.push({
            start: elStart,
            end: lastScalarEnd(b, elStart, i),
            members: elMembers,
            exactNumbers: elExact,
          });
        elStart = -1;
        inData = false;
      }
      if (depth === 0) shapeOk = false;
      else depth--;
      i++;
      if (inData && depth === 2 && elStart >= 0) {
        elements?.push({ start: elStart, end: i, members: elMembers, exactNumbers: elExact });
        elStart = -1;
      }
      continue;
    }
    if (c === COMMA) {
      if (inData && depth === 2 && elStart >= 0) {
        elements?.push({
          start: elStart,
          end: lastScalarEnd(b, elStart, i),
          members: elMembers,
          exactNumbers: elExact,
        });
        elStart = -1;
      }
      if (depth === 1) expectDataValue = false;
      i++;
      continue;
    }
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
      i++;
      continue;
    }
    // A number or a literal: its digits decide whether every reader holds it alike (C36, C38).
    if (inData && depth === 2 && elStart < 0) {
      elStart = i;
      elMembers = 0;
      elExact = true;
    }
    if (depth === 1 && expectDataValue) expectDataValue = false;
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let digits = 0;
      let leading = true;
      let exponentAt = -1;
      const start = i;
      for (;;) {
        const d = b[i];
        if (d !== undefined && d >= 0x30 && d <= 0x39) {
          if (exponentAt < 0 && !(leading && d === 0x30)) {
            leading = false;
            digits++;
          }
        } else if (d === 0x65 || d === 0x45) exponentAt = i + 1;
        else if (d !== 0x2e && d !== 0x2d && d !== 0x2b) break;
        i++;
      }
      if (digits > 15) elExact = false;
      else if (exponentAt >= 0 && Math.abs(Number(latin1(b, exponentAt, i))) > 290) elExact = false;
      if (i === start) i++;
      continue;
    }
    i++;
  }
  const shaped = shapeOk && depth === 0 && dataSeen && dataIsArray && isTopObject(b);
  return { ok: true, elements: shaped ? elements : null, unicodeEscapes: strings.unicodeEscapes };
}

/** What the string skipping knows across a body: the next backslash (or the end) and whether `\u` occurred. */
interface StringState {
  /** The same bytes as a Buffer: Node's `indexOf` of a byte is a memchr, the typed array's a slower loop. */
  search: Buffer;
  backslash: number;
  unicodeEscapes: boolean;
}

/** Bytes of a string read in JavaScript before the rest is searched natively: most member names are shorter. */
const SHORT_STRING = 32;

/**
 * The offset of the quote that closes the string whose content starts at `i` (`n` when none does). Short
 * strings are read here; the rest of a longer one (digests, user agents, URLs) is found by the native
 * `indexOf`, valid while no backslash comes first (issue 25: the byte loop over strings was most of the
 * scan). A string with an escape is read byte by byte.
 */
function stringEnd(b: Uint8Array, i: number, n: number, st: StringState): number {
  const short = Math.min(i + SHORT_STRING, n);
  for (; i < short; i++) {
    const d = b[i];
    if (d === QUOTE) return i;
    if (d === BACKSLASH) return escapedStringEnd(b, i, n, st);
  }
  if (i >= n) return n;
  if (st.backslash < i) st.backslash = indexOrEnd(st.search, BACKSLASH, i, n);
  const quote = indexOrEnd(st.search, QUOTE, i, n);
  return st.backslash < quote ? escapedStringEnd(b, st.backslash, n, st) : quote;
}

function escapedStringEnd(b: Uint8Array, i: number, n: number, st: StringState): number {
  while (i < n) {
    const d = b[i];
    if (d === QUOTE) return i;
    if (d === BACKSLASH) {
      if (b[i + 1] === 0x75) st.unicodeEscapes = true;
      i += 2;
    } else i++;
  }
  return n;
}

function indexOrEnd(b: Buffer, byte: number, from: number, n: number): number {
  const k = b.indexOf(byte, from);
  return k < 0 ? n : k;
}

function latin1(b: Uint8Array, start: number, end: number): string {
  let s = '';
  for (let k = start; k < end; k++) s += String.fromCharCode(b[k] as number);
  return s;
}

/** The end of a scalar element that started at `start`, before the `,` or `]` at `at`: trailing space trimmed. */
function lastScalarEnd(b: Uint8Array, start: number, at: number): number {
  let end = at;
  while (end > start) {
    const c = b[end - 1];
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) end--;
    else break;
  }
  return end;
}

/** The body is one object: its first and last non-space bytes are `{` and `}`. */
function isTopObject(b: Uint8Array): boolean {
  let i = 0;
  let j = b.length - 1;
  while (i <= j && (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x09)) i++;
  while (j >= i && (b[j] === 0x20 || b[j] === 0x0a || b[j] === 0x0d || b[j] === 0x09)) j--;
  return b[i] === OPEN_OBJECT && b[j] === CLOSE_OBJECT;
}

/** Keys of every object in a parsed value: compared with `LightElement.members` to find a repeated name. */
export function countMembers(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  let n = 0;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) n += countMembers(v[i]);
    return n;
  }
  for (const k in v) {
    n++;
    n += countMembers((v as Record<string, unknown>)[k]);
  }
  return n;
}
