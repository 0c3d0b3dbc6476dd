import { PROBLEM_CODES, VALUE_SHAPES } from '@org/events-types';
import { FIELD_NORMALIZERS, PERSONAL_DATA_MEMBER, UNHASHED_FIELDS } from '../generated/normalizers.gen.js';
import { describeShape } from './json-type.js';
import type { EventProblems } from './problems.js';
import { formatTemplate } from './problems.js';
import { hexState } from './sha256-hex.js';

/** What the values under a container are, for the rule of C70. */
enum Mode {
  /** Nothing known: values are kept unless their own path is dropped. */
  Plain = 0,
  /** A user_data object: each member decides by its name. */
  PersonalData = 1,
  /** The value of a hashed field: only SHA-256 hex digests are kept. */
  Hashed = 2,
  /** Under a dropped or unknown member: nothing is kept. */
  Nothing = 3,
}

interface Frame {
  object: boolean;
  mode: Mode;
  /** Path of the container, `data[0].user_data` style; '' for the root (kept only when paths are asked). */
  path: string;
  /** The member name read last (objects), or the index of the next item (arrays). */
  key: string | null;
  index: number;
  /** A member name was read and its value is awaited. */
  named: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isHashedField(name: string): boolean {
  return Object.hasOwn(FIELD_NORMALIZERS, name);
}

/** The codes whose warning removes the value at its path (messages.yaml `drops: true`). */
const DROPPING_CODES: ReadonlySet<string> = new Set(
  Object.entries(PROBLEM_CODES)
    .filter(([, p]) => (p as { drops?: boolean }).drops === true)
    .map(([code]) => code),
);

/** Whether a problem code means the value at its path was dropped from the event (C70). */
export function dropsValue(code: string): boolean {
  return DROPPING_CODES.has(code);
}

/**
 * The text that stands in for a value that is not kept (C70): its shape in the words of C21, with its length
 * where the shape does not already say it ("an unhashed e-mail address, 20 character(s)"), never a character
 * of it. `identifier` (a value of a hashed field) names a raw e-mail address or phone number as such; any
 * other string is only "a string".
 */
export function redactedText(value: unknown, identifier = true): string {
  if (typeof value !== 'string')
    return formatTemplate(VALUE_SHAPES.redacted, { shape: describeShape(value) });
  const count = [...value].length;
  const plain = count === 0 ? VALUE_SHAPES.empty : formatTemplate(VALUE_SHAPES.string, { count });
  const shape = identifier ? describeShape(value) : plain;
  return formatTemplate(VALUE_SHAPES.redacted, { shape, count: shape === plain ? undefined : count });
}

/**
 * What the request log must clean of an event (C70), from its problems: null when nothing (no problem names
 * user_data and none drops a value), else the paths whose values were dropped (possibly none: the rule's
 * static part still applies to user_data).
 */
export function personalDataPaths(p: EventProblems): Set<string> | null {
  let out: Set<string> | null = null;
  for (const list of [p.errors, p.warnings])
    for (const q of list) {
      if (dropsValue(q.code)) {
        out ??= new Set();
        out.add(q.path);
      } else if (
        PERSONAL_DATA_MEMBER !== undefined &&
        (q.path === PERSONAL_DATA_MEMBER || q.path.startsWith(`${PERSONAL_DATA_MEMBER}.`))
      )
        out ??= new Set();
    }
  return out;
}

/** The mode of a value met in a container of mode `parent` under member `key` (null in an array). */
function childMode(parent: Mode, key: string | null): Mode {
  switch (parent) {
    case Mode.Nothing:
      return Mode.Nothing;
    case Mode.Hashed:
      // An array item of a hashed field, or anything deeper: digests only.
      return Mode.Hashed;
    case Mode.PersonalData:
      if (key === null) return Mode.Nothing;
      if (isHashedField(key)) return Mode.Hashed;
      return UNHASHED_FIELDS.has(key) ? Mode.Plain : Mode.Nothing;
    default:
      return key !== null && key === PERSONAL_DATA_MEMBER ? Mode.PersonalData : Mode.Plain;
  }
}

/** Whether a scalar token is kept where values are of mode `mode`. */
function scalarKept(mode: Mode, value: unknown): boolean {
  switch (mode) {
    case Mode.Plain:
      return true;
    case Mode.Hashed:
      return value === null || (typeof value === 'string' && hexState(value) !== 0);
    case Mode.PersonalData:
      // user_data given as a scalar: refused (C21), never kept; null says nothing.
      return value === null;
    default:
      return value === null || typeof value === 'boolean';
  }
}

/** A JSON string token's value; a malformed one (bad escape, no closing quote) as its raw characters. */
function stringValue(token: string): string {
  try {
    return JSON.parse(token) as string;
  } catch {
    return token.slice(1, token.endsWith('"') && token.length > 1 ? -1 : undefined);
  }
}

function literalValue(token: string): unknown {
  if (token === 'null') return null;
  if (token === 'true') return true;
  if (token === 'false') return false;
  const n = Number(token);
  return Number.isNaN(n) ? token : n;
}

function isStructural(c: number): boolean {
  // { } [ ] , : " and JSON whitespace
  return (
    c === 0x7b ||
    c === 0x7d ||
    c === 0x5b ||
    c === 0x5d ||
    c === 0x2c ||
    c === 0x3a ||
    c === QUOTE ||
    c === 0x20 ||
    c === 0x09 ||
    c === 0x0a ||
    c === 0x0d
  );
}

/**
 * C70: `text` (JSON, or what a client sent as JSON) with every value the service refuses or drops as personal
 * data replaced by `redactedText`: values of hashed `user_data` fields that are not SHA-256 hex digests, every
 * value under a `user_data` member that is not a field, `user_data` given as a scalar, and every value at or
 * under a path of `dropped` (paths from the root of `text`, as problems name them: `user_data.em[0]`). Every
 * other character is kept as sent. A tolerant lexer, not a parser: malformed text is read as far as it goes,
 * so a body refused as a whole is cleaned by the same rule. Returns null when nothing was replaced.
 */
export function redactJson(text: string, dropped?: ReadonlySet<string> | null): string | null {
  const paths = dropped != null && dropped.size > 0;
  const stack: Frame[] = [];
  let out = '';
  let copied = 0;
  let changed = false;
  const n = text.length;

  /** Mode of the value starting now, in the innermost container (or at the root), and its path. */
  const valueAt = (scalar: boolean): { mode: Mode; identifier: boolean; path: string } => {
    const f = stack[stack.length - 1];
    if (f === undefined) return { mode: Mode.Plain, identifier: false, path: '' };
    const key = f.object ? f.key : null;
    let mode = childMode(f.mode, key);
    // A value of a hashed field, or user_data itself, may be a raw identifier, and is named so.
    const identifier = mode === Mode.Hashed || mode === Mode.PersonalData;
    let path = '';
    if (paths) {
      path = f.object ? (f.path === '' ? (key ?? '') : `${f.path}.${key ?? ''}`) : `${f.path}[${f.index}]`;
      // A scalar coerced to a one-item array is named by its item (user_data.em[0]).
      if (dropped.has(path) || (scalar && dropped.has(`${path}[0]`))) mode = Mode.Nothing;
    }
    return { mode, identifier, path };
  };

  const replace = (start: number, end: number, value: unknown, identifier: boolean) => {
    out += text.slice(copied, start) + JSON.stringify(redactedText(value, identifier));
    copied = end;
    changed = true;
  };

  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (c === 0x7b || c === 0x5b) {
      const { mode, path } = valueAt(false);
      stack.push({ object: c === 0x7b, mode, path, key: null, index: 0, named: false });
      i++;
      continue;
    }
    if (c === 0x7d || c === 0x5d) {
      if (top !== undefined && top.object === (c === 0x7d)) stack.pop();
      const parent = stack[stack.length - 1];
      if (parent?.object) parent.named = false;
      i++;
      continue;
    }
    if (c === 0x2c) {
      if (top !== undefined) {
        if (top.object) top.named = false;
        else top.index++;
      }
      i++;
      continue;
    }
    if (c === 0x3a) {
      if (top?.object) top.named = true;
      i++;
      continue;
    }
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) {
      i++;
      continue;
    }
    // A scalar: a string, or a run of anything else (numbers, literals, junk) up to the next structural byte.
    const start = i;
    if (c === QUOTE) {
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i += 2;
        else if (d === QUOTE) {
          i++;
          break;
        } else i++;
      }
      if (i > n) i = n;
    } else while (i < n && !isStructural(text.charCodeAt(i))) i++;
    const token = text.slice(start, i);
    if (top?.object && !top.named && c === QUOTE) {
      // A member name: kept as sent; it decides the mode of its value.
      top.key = stringValue(token);
      continue;
    }
    const { mode, identifier } = valueAt(true);
    const value = c === QUOTE ? stringValue(token) : literalValue(token);
    if (!scalarKept(mode, value)) replace(start, i, value, identifier);
    if (top?.object) top.named = false;
  }
  return changed ? out + text.slice(copied) : null;
}
