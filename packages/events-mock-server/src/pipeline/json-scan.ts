import { isUtf8 } from 'node:buffer';

/** What the scanner checks before JSON.parse runs (C35-C37); the values come from the spec's limits. */
export interface ScanLimits {
  /** Deepest nesting of objects and arrays (the body itself is depth 1). */
  maxDepth: number;
  /** Most members of one object. */
  maxMembers: number;
}

/** One element of the top-level `data` array: its bytes, and what the scanner found inside. */
export interface DataElement {
  start: number;
  end: number;
  /** Path (inside the event) of the first member name given twice, or null. */
  duplicate: string | null;
  /**
   * Whether every number of the element reads the same in any JSON reader: at most 15 significant digits
   * and a modest exponent. Otherwise JavaScript rounds where SQLite (64-bit integers) does not.
   */
  exactNumbers: boolean;
}

export type ScanProblem =
  | { kind: 'utf8'; offset: number }
  | { kind: 'surrogate'; offset: number }
  | { kind: 'depth'; offset: number; max: number }
  | { kind: 'members'; offset: number; max: number }
  | { kind: 'duplicate_top'; key: string };

/**
 * `elements` is null when the body is not `{ ... "data": [ ... ] ... }` as expected (JSON.parse and the
 * request checks then say what is wrong).
 */
export type ScanResult = { ok: true; elements: DataElement[] | null } | ({ ok: false } & ScanProblem);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Objects up to this many members compare names pairwise; larger ones use a set. */
const SMALL_OBJECT = 16;

/** A number as JSON writes it (RFC 8259 section 6). */
const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/** Offset of the first byte that does not belong to a well-formed UTF-8 sequence. */
export function invalidUtf8Offset(b: Uint8Array): number {
  const n = b.length;
  let i = 0;
  while (i < n) {
    const c = b[i] as number;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (c >= 0xc2 && c <= 0xdf) [need, min] = [1, 0x80];
    else if (c >= 0xe0 && c <= 0xef) [need, min] = [2, 0x800];
    else if (c >= 0xf0 && c <= 0xf4) [need, min] = [3, 0x10000];
    else return i;
    let cp = c & (need === 1 ? 0x1f : need === 2 ? 0x0f : 0x07);
    for (let k = 1; k <= need; k++) {
      const d = b[i + k];
      if (d === undefined || (d & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}

class Stop extends Error {
  constructor(readonly problem: ScanProblem | null) {
    super('stop');
  }
}

/**
 * One pass over the bytes of a request body, before JSON.parse (C35-C37): well-formed UTF-8 with no
 * unpaired surrogate escapes (I-JSON, RFC 7493), nesting depth and members per object within the spec's
 * limits, no member name given twice at the top level, and for each event of `data` its exact bytes, the
 * first repeated member name inside it and whether its numbers read alike everywhere. It does not replace
 * JSON.parse: on anything that is not JSON it stops and leaves the diagnosis to the parser.
 */
export function scanBody(b: Buffer, limits: ScanLimits): ScanResult {
  if (!isUtf8(b)) return { ok: false, kind: 'utf8', offset: invalidUtf8Offset(b) };
  const n = b.length;
  let i = 0;
  let depth = 0;
  // Within a data element: the path of containers from the event down, for naming a repeated member; an
  // array index as itself, a member as -(offset of its name) - 1.
  const path: number[] = [];
  let pathLen = 0;
  // The member names of the objects open now, as [start, end) byte ranges of their quoted text, stacked.
  const names: number[] = [];
  let namesTop = 0;
  let inElement = false;
  let duplicate: string | null = null;
  let exact = true;

  const ws = () => {
    let j = i;
    for (;;) {
      const c = b[j];
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) j++;
      else break;
    }
    i = j;
  };
  const hex4 = (at: number): number => {
    let v = 0;
    for (let k = 0; k < 4; k++) {
      const c = b[at + k] as number;
      const d =
        c >= 0x30 && c <= 0x39
          ? c - 0x30
          : c >= 0x61 && c <= 0x66
            ? c - 0x57
            : c >= 0x41 && c <= 0x46
              ? c - 0x37
              : -1;
      if (d < 0) throw new Stop(null);
      v = (v << 4) | d;
    }
    return v;
  };
  /** Skips a string starting at the quote; returns whether it had escapes. */
  const string = (): boolean => {
    i++;
    let escaped = false;
    for (;;) {
      // The plain run of a string in a local index: the closure's `i` lives on the heap.
      let j = i;
      for (;;) {
        const c = b[j] as number;
        if (c >= 0x20 && c !== QUOTE && c !== BACKSLASH) j++;
        else break;
      }
      i = j;
      const c = b[i];
      if (c === undefined) throw new Stop(null);
      if (c === QUOTE) {
        i++;
        return escaped;
      }
      if (c === BACKSLASH) {
        escaped = true;
        if (b[i + 1] === 0x75 /* u */) {
          const at = i;
          const u = hex4(i + 2);
          i += 6;
          if (u >= 0xdc00 && u <= 0xdfff) throw new Stop({ kind: 'surrogate', offset: at });
          if (u >= 0xd800 && u <= 0xdbff) {
            if (b[i] !== BACKSLASH || b[i + 1] !== 0x75) throw new Stop({ kind: 'surrogate', offset: at });
            const lo = hex4(i + 2);
            if (lo < 0xdc00 || lo > 0xdfff) throw new Stop({ kind: 'surrogate', offset: at });
            i += 6;
          }
        } else {
          // Only JSON's own escapes: any other (`\a`) is not JSON, and the parse says where.
          const e = b[i + 1];
          if (
            e !== QUOTE &&
            e !== BACKSLASH &&
            e !== 0x2f /* / */ &&
            e !== 0x62 /* b */ &&
            e !== 0x66 /* f */ &&
            e !== 0x6e /* n */ &&
            e !== 0x72 /* r */ &&
            e !== 0x74 /* t */
          )
            throw new Stop(null);
          i += 2;
        }
        continue;
      }
      if (c < 0x20) throw new Stop(null);
      i++;
    }
  };
  /** The name a quoted string at [start, end) spells; JSON.parse only for the rare escaped one. */
  const nameText = (start: number, end: number): string => {
    for (let k = start + 1; k < end - 1; k++)
      if (b[k] === BACKSLASH) return JSON.parse(b.toString('utf8', start, end)) as string;
    return b.toString('utf8', start + 1, end - 1);
  };
  /** The name of the quoted string starting at `start` (its end found again: only for messages). */
  const nameAt = (start: number): string => {
    const saved = i;
    i = start;
    string();
    const end = i;
    i = saved;
    return nameText(start, end);
  };
  const sameBytes = (a: number, c: number, len: number): boolean => {
    for (let k = 0; k < len; k++) if (b[a + k] !== b[c + k]) return false;
    return true;
  };
  const number = () => {
    let digits = 0;
    let leading = true;
    let exponent = false;
    let expStart = 0;
    const start = i;
    for (;;) {
      const c = b[i];
      if (c !== undefined && c >= 0x30 && c <= 0x39) {
        if (!exponent) {
          if (!(leading && c === 0x30)) {
            leading = false;
            digits++;
          }
        }
      } else if (c === 0x65 || c === 0x45) {
        exponent = true;
        expStart = i + 1;
      } else if (c !== 0x2e && c !== 0x2d && c !== 0x2b) break;
      i++;
    }
    // Not a number of JSON's grammar (a lone `-`, `1.`, `--1`): not JSON, so no elements either.
    if (i === start || !JSON_NUMBER.test(b.toString('latin1', start, i))) throw new Stop(null);
    if (digits > 15) exact = false;
    else if (exponent && Math.abs(Number(b.toString('latin1', expStart, i))) > 290) exact = false;
  };
  const literal = () => {
    const c = b[i];
    const word = c === 0x74 ? 'true' : c === 0x66 ? 'false' : c === 0x6e ? 'null' : null;
    if (word === null || b.toString('latin1', i, i + word.length) !== word) throw new Stop(null);
    i += word.length;
  };
  const tooDeep = () => {
    if (depth > limits.maxDepth) throw new Stop({ kind: 'depth', offset: i, max: limits.maxDepth });
  };
  const value = (): void => {
    ws();
    const c = b[i];
    if (c === 0x7b) object();
    else if (c === 0x5b) array();
    else if (c === QUOTE) string();
    else if (c === 0x2d || (c !== undefined && c >= 0x30 && c <= 0x39)) number();
    else literal();
  };
  const object = (): void => {
    depth++;
    tooDeep();
    i++;
    ws();
    if (b[i] === 0x7d) {
      i++;
      depth--;
      return;
    }
    // Names are compared as bytes while none is escaped and the object is small: no string is made for a
    // name unless it is reported. An escaped name (`"\u0061"` is `"a"`) or a large object switches the
    // object to a set of the decoded names.
    const base = namesTop;
    let set: Set<string> | null = null;
    let members = 0;
    const slot = pathLen;
    for (;;) {
      ws();
      if (b[i] !== QUOTE) throw new Stop(null);
      const start = i;
      const escaped = string();
      const end = i;
      if (members >= limits.maxMembers)
        throw new Stop({ kind: 'members', offset: start, max: limits.maxMembers });
      members++;
      if (set === null && (escaped || members > SMALL_OBJECT)) {
        set = new Set();
        for (let k = base; k < namesTop; k += 2)
          set.add(nameText(names[k] as number, names[k + 1] as number));
      }
      let repeated = false;
      if (set !== null) {
        const name = nameText(start, end);
        repeated = set.has(name);
        set.add(name);
      } else {
        const len = end - start;
        for (let k = base; k < namesTop; k += 2) {
          const s = names[k] as number;
          if ((names[k + 1] as number) - s === len && sameBytes(s, start, len)) {
            repeated = true;
            break;
          }
        }
        names[namesTop++] = start;
        names[namesTop++] = end;
      }
      if (repeated) {
        if (depth === 1) throw new Stop({ kind: 'duplicate_top', key: nameText(start, end) });
        if (inElement && duplicate === null) duplicate = pathText(path, slot, nameText(start, end));
      }
      ws();
      if (b[i] !== 0x3a) throw new Stop(null);
      i++;
      if (inElement) {
        path[slot] = -start - 1;
        pathLen = slot + 1;
      }
      if (depth === 1 && isData(start, end, escaped)) {
        ws();
        if (b[i] === 0x5b) dataArray = dataElements();
        else {
          dataArray = null;
          value();
        }
      } else value();
      pathLen = slot;
      ws();
      const d = b[i];
      i++;
      if (d === 0x7d) break;
      if (d !== 0x2c) throw new Stop(null);
    }
    namesTop = base;
    depth--;
  };
  const isData = (start: number, end: number, escaped: boolean): boolean =>
    escaped
      ? nameText(start, end) === 'data'
      : end - start === 6 &&
        b[start + 1] === 0x64 &&
        b[start + 2] === 0x61 &&
        b[start + 3] === 0x74 &&
        b[start + 4] === 0x61;
  /** The path of a repeated name inside an element: the container path, then the name. */
  const pathText = (parts: readonly number[], upTo: number, name: string): string => {
    let s = '';
    for (let k = 0; k < upTo; k++) {
      const p = parts[k] as number;
      s += p >= 0 ? `[${p}]` : s === '' ? nameAt(-p - 1) : `.${nameAt(-p - 1)}`;
    }
    return s === '' ? name : `${s}.${name}`;
  };
  const array = (): void => {
    depth++;
    tooDeep();
    i++;
    ws();
    if (b[i] === 0x5d) {
      i++;
      depth--;
      return;
    }
    const slot = pathLen;
    for (let k = 0; ; k++) {
      if (inElement) {
        path[slot] = k;
        pathLen = slot + 1;
      }
      value();
      ws();
      const d = b[i];
      i++;
      if (d === 0x5d) break;
      if (d !== 0x2c) throw new Stop(null);
    }
    pathLen = slot;
    depth--;
  };
  let dataArray: DataElement[] | null = null;
  const dataElements = (): DataElement[] => {
    depth++;
    tooDeep();
    i++;
    const out: DataElement[] = [];
    ws();
    if (b[i] === 0x5d) {
      i++;
      depth--;
      return out;
    }
    for (;;) {
      ws();
      const start = i;
      inElement = true;
      duplicate = null;
      exact = true;
      pathLen = 0;
      value();
      inElement = false;
      out.push({ start, end: i, duplicate, exactNumbers: exact });
      ws();
      const d = b[i];
      i++;
      if (d === 0x5d) break;
      if (d !== 0x2c) throw new Stop(null);
    }
    depth--;
    return out;
  };

  try {
    ws();
    if (b[i] !== 0x7b) {
      value();
      return { ok: true, elements: null };
    }
    object();
    ws();
    return { ok: true, elements: i === n ? dataArray : null };
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    return e.problem ? { ok: false, ...e.problem } : { ok: true, elements: null };
  }
}
