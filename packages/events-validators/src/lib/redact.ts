import { NORMALIZATION, PROBLEM_CODES, VALUE_SHAPES } from '@org/events-types';
import {
  BODY_SCHEMA,
  EVENT_SCHEMA,
  FIELD_NORMALIZERS,
  KNOWN_MEMBERS,
  PERSONAL_DATA_MEMBER,
  UNHASHED_FIELDS,
} from '../generated/normalizers.gen.js';
import { describeShape, readsAsContact } from './json-type.js';
import type { EventProblems } from './problems.js';
import { formatTemplate } from './problems.js';
import { hexState } from './sha256-hex.js';

/** What the values under a container are, for the rules of C70 and C117. */
enum Mode {
  /** Members the spec names: values are kept unless their own path is dropped. */
  Plain = 0,
  /** A user_data object: each member decides by its name. */
  PersonalData = 1,
  /** The value of a hashed field: only SHA-256 hex digests are kept. */
  Hashed = 2,
  /** Under a dropped member, or an unknown one named like personal data: no string or number is kept. */
  Nothing = 3,
  /** What no schema names (C117): a string that reads as a contact or an IP address is not kept. */
  Unknown = 4,
}

interface Frame {
  object: boolean;
  mode: Mode;
  /**
   * In Plain mode, what the spec says the container holds (KNOWN_MEMBERS): an object's schema name, or an
   * array's item ('s' a scalar, a schema name an object).
   */
  known: string;
  /** Path of the container, `data[0].user_data` style; '' for the root (kept only when paths are asked). */
  path: string;
  /** The member name read last (objects), or the index of the next item (arrays). */
  key: string | null;
  index: number;
  /** A member name was read and its value is awaited. */
  named: boolean;
  /** Values under it that are not kept are named as raw identifiers where they read as one (C21). */
  identifier: boolean;
}

/** Where a value sits: its mode, and in Plain mode what the spec wants there ('s', 's[]', 'Name', 'Name[]'). */
interface Place {
  mode: Mode;
  want: string;
  identifier: boolean;
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
 * The codes that say an event holds something the service does not know (C117): an unknown member, or a value
 * of another type than the spec's. Their rule kinds, not their names: a new code of such a kind is covered.
 */
const STRAY_CODES: ReadonlySet<string> = new Set(
  Object.entries(PROBLEM_CODES)
    .filter(([, p]) => ['unknown-keys', 'type'].includes((p as { kind?: string }).kind ?? ''))
    .map(([code]) => code),
);

/**
 * What the request log must clean of an event (C70, C117), from its problems: null when nothing (no problem
 * names user_data, none drops a value, none says the event holds something unknown), else the paths whose
 * values were dropped (possibly none: the rules' static part still applies).
 */
export function personalDataPaths(p: EventProblems): Set<string> | null {
  let out: Set<string> | null = null;
  for (const list of [p.errors, p.warnings])
    for (const q of list) {
      if (dropsValue(q.code)) {
        out ??= new Set();
        out.add(q.path);
      } else if (
        STRAY_CODES.has(q.code) ||
        (PERSONAL_DATA_MEMBER !== undefined &&
          (q.path === PERSONAL_DATA_MEMBER || q.path.startsWith(`${PERSONAL_DATA_MEMBER}.`)))
      )
        out ??= new Set();
    }
  return out;
}

/** The paths an event failed on (C117): what the service did not take, read like what it does not know. */
export function refusedPaths(p: EventProblems): Set<string> {
  const out = new Set<string>();
  for (const q of p.errors) if (q.path !== '') out.add(q.path);
  return out;
}

/** The spec's words that make a member name personal data (C117, normalization.yaml). */
const PERSONAL_MEMBER_WORDS: ReadonlySet<string> = new Set(NORMALIZATION.personalMemberWords);

/** Member names already read as words (C117): a batch repeats the same few. */
const personalNames = new Map<string, boolean>();

/**
 * Whether a member name reads as personal data (C117): a word of it (snake_case, kebab-case, camelCase), or
 * two or three adjacent words joined, is one of the spec's `personalMemberWords`.
 */
export function namedAsPersonal(name: string): boolean {
  const seen = personalNames.get(name);
  if (seen !== undefined) return seen;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
  let found = false;
  for (let i = 0; i < words.length && !found; i++)
    for (let n = 1; n <= 3 && i + n <= words.length && !found; n++)
      found = PERSONAL_MEMBER_WORDS.has(words.slice(i, i + n).join(''));
  // A long or endless run of distinct names never grows the map past a batch's worth.
  if (personalNames.size < 4096 && name.length <= 256) personalNames.set(name, found);
  return found;
}

const UNKNOWN: Place = { mode: Mode.Unknown, want: '', identifier: true };
const WITHHELD: Place = { mode: Mode.Nothing, want: '', identifier: true };

/** A member no schema names: withheld when its name reads as personal data, else read by the detector. */
function unknownMember(key: string | null): Place {
  return key !== null && namedAsPersonal(key) ? WITHHELD : UNKNOWN;
}

/** The place of a value met in container `f` (under member `key` when it is an object). */
function childPlace(f: Frame, key: string | null): Place {
  switch (f.mode) {
    case Mode.Nothing:
      return { mode: Mode.Nothing, want: '', identifier: f.identifier };
    case Mode.Hashed:
      // An array item of a hashed field, or anything deeper: digests only.
      return { mode: Mode.Hashed, want: '', identifier: true };
    case Mode.PersonalData:
      if (key === null) return { mode: Mode.Nothing, want: '', identifier: true };
      if (isHashedField(key)) return { mode: Mode.Hashed, want: '', identifier: true };
      return UNHASHED_FIELDS.has(key)
        ? { mode: Mode.Plain, want: 's', identifier: false }
        : { mode: Mode.Nothing, want: '', identifier: true };
    case Mode.Unknown:
      if (!f.object) return UNKNOWN;
      return key === PERSONAL_DATA_MEMBER
        ? { mode: Mode.PersonalData, want: '', identifier: true }
        : unknownMember(key);
    default: {
      if (!f.object) return { mode: Mode.Plain, want: f.known, identifier: false };
      if (key !== null && key === PERSONAL_DATA_MEMBER)
        return { mode: Mode.PersonalData, want: '', identifier: true };
      const want = key === null ? undefined : KNOWN_MEMBERS[f.known]?.[key];
      return want === undefined ? unknownMember(key) : { mode: Mode.Plain, want, identifier: false };
    }
  }
}

/**
 * The mode of a container whose place wants `place.want`: the same when the spec wants such a container
 * there, Unknown when it wants something else (an object where a string belongs, C117).
 */
function containerFrame(place: Place, object: boolean): { mode: Mode; known: string } {
  if (place.mode !== Mode.Plain) return { mode: place.mode, known: '' };
  const list = place.want.endsWith('[]');
  if (object && !list && place.want !== 's') return { mode: Mode.Plain, known: place.want };
  if (!object && list) return { mode: Mode.Plain, known: place.want.slice(0, -2) };
  return { mode: Mode.Unknown, known: '' };
}

/** Whether a scalar token is kept where values are of mode `mode` (and, in Plain mode, where `want` is wanted). */
function scalarKept(mode: Mode, want: string, value: unknown): boolean {
  switch (mode) {
    case Mode.Plain:
      // A scalar where the spec wants an object is something the service does not know (C117).
      return want === 's' || want === 's[]' || unknownKept(value);
    case Mode.Hashed:
      return value === null || (typeof value === 'string' && hexState(value) !== 0);
    case Mode.PersonalData:
      // user_data given as a scalar: refused (C21), never kept; null says nothing.
      return value === null;
    case Mode.Unknown:
      return unknownKept(value);
    default:
      return value === null || typeof value === 'boolean';
  }
}

/** C117: a string the service does not know is kept unless it reads as a contact or an IP address. */
function unknownKept(value: unknown): boolean {
  return typeof value !== 'string' || !readsAsContact(value);
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

/** What the root of a text to clean is: a whole batch body, or one event of it. */
export type RedactRoot = 'body' | 'event';

const ROOTS: Record<RedactRoot, Place> = {
  body: { mode: Mode.Plain, want: BODY_SCHEMA, identifier: false },
  event: { mode: Mode.Plain, want: EVENT_SCHEMA, identifier: false },
};

/**
 * C70 and C117: `text` (JSON, or what a client sent as JSON) with every value the service refuses or drops as
 * personal data replaced by `redactedText`: values of hashed `user_data` fields that are not SHA-256 hex
 * digests, every value under a `user_data` member that is not a field, `user_data` given as a scalar, every
 * value at or under a path of `dropped` (paths from the root of `text`, as problems name them:
 * `user_data.em[0]`), and what the service does not know where it may be personal data (C117: under a member
 * no schema names, where the schema wants something else, or at a path of `refused`, the values its event
 * failed on). `root` says what `text` is. Every other
 * character is kept as sent. A tolerant lexer, not a parser: malformed text is read as far as it goes, so a
 * body refused as a whole is cleaned by the same rule. Returns null when nothing was replaced.
 */
export function redactJson(
  text: string,
  dropped?: ReadonlySet<string> | null,
  root: RedactRoot = 'body',
  refused?: ReadonlySet<string> | null,
): string | null {
  const checked = refused != null && refused.size > 0;
  const paths = (dropped != null && dropped.size > 0) || checked;
  const stack: Frame[] = [];
  let out = '';
  let copied = 0;
  let changed = false;
  const n = text.length;

  /** Place of the value starting now, in the innermost container (or at the root), and its path. */
  const valueAt = (scalar: boolean): { place: Place; path: string } => {
    const f = stack[stack.length - 1];
    if (f === undefined) return { place: ROOTS[root], path: '' };
    const key = f.object ? f.key : null;
    let place = childPlace(f, key);
    let path = '';
    if (paths) {
      path = f.object ? (f.path === '' ? (key ?? '') : `${f.path}.${key ?? ''}`) : `${f.path}[${f.index}]`;
      // A scalar coerced to a one-item array is named by its item (user_data.em[0]).
      if (dropped?.has(path) || (scalar && dropped?.has(`${path}[0]`)))
        place = { mode: Mode.Nothing, want: '', identifier: place.identifier };
      // A value its event failed on is one the service did not take: read like an unknown one (C117).
      else if (checked && place.mode === Mode.Plain && refused.has(path)) place = UNKNOWN;
    }
    return { place, path };
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
      const { place, path } = valueAt(false);
      const object = c === 0x7b;
      const { mode, known } = containerFrame(place, object);
      stack.push({
        object,
        mode,
        known,
        path,
        key: null,
        index: 0,
        named: false,
        identifier: place.identifier,
      });
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
    const { place } = valueAt(true);
    const value = c === QUOTE ? stringValue(token) : literalValue(token);
    // A Plain scalar is replaced only where an object belongs (C117), and is then named like an identifier.
    if (!scalarKept(place.mode, place.want, value))
      replace(start, i, value, place.identifier || place.mode === Mode.Plain);
    if (top?.object) top.named = false;
  }
  return changed ? out + text.slice(copied) : null;
}
