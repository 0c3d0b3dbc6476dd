import { NORMALIZATION, type UserData } from '@org/events-types';
import {
  COUNTRY_FIELD,
  EVENT_SCHEMA,
  FIELD_NORMALIZERS,
  KNOWN_MEMBERS,
  PERSONAL_DATA_MEMBER,
} from '../generated/normalizers.gen.js';
import type { StepContext } from './normalize-steps.js';
import { hexState } from './sha256-hex.js';

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/**
 * SHA-256 of the UTF-8 bytes of `s`, as 64 lower-case hex characters (C5). Uses Web Crypto
 * (`globalThis.crypto.subtle`), so it runs in Node >= 20 and in browsers alike.
 */
export async function sha256Hex(s: string): Promise<string> {
  const subtle = globalThis.crypto?.subtle;
  if (subtle === undefined)
    throw new Error('sha256Hex needs Web Crypto (globalThis.crypto.subtle): Node >= 20 or a browser');
  const digest = new Uint8Array(await subtle.digest('SHA-256', new TextEncoder().encode(s)));
  let out = '';
  for (const b of digest) out += HEX[b];
  return out;
}

/**
 * C119: every member of user_data the spec has, with what it holds (KNOWN_MEMBERS, generated from the same
 * schema the server checks): the hashed ones are those of FIELD_NORMALIZERS, every other one is sent as is
 * (click_id, client_ip_address, customer_type, ...). A field added to the spec is known here after `pnpm gen`.
 */
const USER_DATA_MEMBERS: Readonly<Record<string, string>> = (() => {
  const schema =
    PERSONAL_DATA_MEMBER === undefined ? undefined : KNOWN_MEMBERS[EVENT_SCHEMA]?.[PERSONAL_DATA_MEMBER];
  return (schema !== undefined ? KNOWN_MEMBERS[schema] : undefined) ?? {};
})();

function normalizerOf(field: string): ((s: string, x: StepContext) => string | null) | undefined {
  if (Object.hasOwn(FIELD_NORMALIZERS, field)) return FIELD_NORMALIZERS[field];
  if (Object.hasOwn(USER_DATA_MEMBERS, field)) return undefined;
  throw new TypeError(
    `${field} is not a user_data field; known fields: ${Object.keys(USER_DATA_MEMBERS).join(', ')}`,
  );
}

function normalizeWith(field: string, raw: string, x: StepContext): string | null {
  const fn = normalizerOf(field);
  if (fn === undefined) return raw;
  const t = raw.trim();
  if (hexState(t) !== 0) return t.toLowerCase();
  return fn(raw, x);
}

/**
 * C5: the value of a user_data field as it must be before hashing, per the field's kind
 * (NORMALIZATION.fields): em trim+lower, ph digits only without leading zeros, db YYYYMMDD, st and country
 * two-letter codes, ... Returns null when the value cannot be normalized (empty, a date in no accepted
 * layout, a state or country no list maps, an unknown gender word). A value that is already a SHA-256 hex
 * digest is returned lower-cased; a field sent as is (click_id, client_ip_address, customer_type, ...) is
 * returned as is. Throws a TypeError for a name that is not a user_data field (such as first_name).
 */
export function normalize(field: string, raw: string): string | null {
  return normalizeWith(field, raw, {});
}

/**
 * What the steps of one user_data's values know: its country (the first value of the country field, when it
 * normalizes to a code rather than being a digest already), which selects the zip rule (C5).
 */
function contextOf(userData: Readonly<Record<string, unknown>>): StepContext {
  const x: StepContext = {};
  const country = COUNTRY_FIELD === undefined ? undefined : userData[COUNTRY_FIELD];
  const first = Array.isArray(country) ? country[0] : country;
  if (typeof first === 'string' && COUNTRY_FIELD !== undefined) {
    const c = normalizeWith(COUNTRY_FIELD, first, x);
    if (c !== null && hexState(c) === 0) x.country = c;
  }
  return x;
}

/**
 * C5: builds `user_data` from raw values: each hashed field normalized and hashed with SHA-256 (always as an
 * array; values already 64-hex passed through lower-cased; values that cannot be normalized left out, and a
 * field left with no value omitted), every other field of the spec's user_data copied as it is (C119: the
 * server's fields, so nothing the server accepts is refused here), undefined values skipped. The country,
 * when given, selects the zip rule (US: first 5 digits). Throws a TypeError for a name that is no field of
 * user_data, or for a field sent as is given as an array.
 */
export async function hashUserData(
  raw: Record<string, string | string[] | null | undefined>,
): Promise<UserData> {
  const x = contextOf(raw);
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (normalizerOf(field) === undefined) {
      if (Array.isArray(value)) throw new TypeError(`${field} is sent as is: give one string, not an array`);
      out[field] = value;
      continue;
    }
    if (value === null) continue;
    const hashes: string[] = [];
    for (const v of Array.isArray(value) ? value : [value]) {
      const n = normalizeWith(field, v, x);
      if (n === null) continue;
      hashes.push(hexState(n) !== 0 ? n : await sha256Hex(n));
    }
    if (hashes.length > 0) out[field] = hashes;
  }
  return out as UserData;
}

/** What `hashUserDataInPlace` did to one event (C125). */
export interface HashedOnArrival {
  /** The hashed fields of which a value was normalized and hashed, as paths from the event (`user_data.em`). */
  hashed: string[];
  /**
   * The values that could not be normalized, left where they were for the rules to drop: each value's path as
   * the rules name it (`user_data.em[0]`) and its field's normalization kind (`email`).
   */
  unusable: { path: string; kind: string }[];
  /**
   * Each raw string replaced and what replaced it, in order: for a caller that splices the digests into the
   * bytes it read instead of serializing the event again. Never to be kept or logged.
   */
  replaced: [raw: string, digest: string][];
}

/**
 * C125: normalizes and hashes, in place, each string in the array of a hashed field of `event.user_data` that
 * is not yet a SHA-256 hex digest, by the rules `hashUserData` applies (the same normalizers; the country of
 * the same user_data selects the zip rule; a digest with spaces around it is trimmed and lower-cased, not
 * hashed again), `sha256` computing the lower-case hex digest (synchronous: the server passes node:crypto).
 * Everything else is left for the rules to judge: a digest, a value of another type, a field that is not an
 * array, a member that is no hashed field, and a value that cannot be normalized (reported in `unusable`).
 * Returns null when there was nothing to do. `event` is any parsed JSON value.
 */
export function hashUserDataInPlace(event: unknown, sha256: (s: string) => string): HashedOnArrival | null {
  if (PERSONAL_DATA_MEMBER === undefined || !isRecord(event)) return null;
  const userData = event[PERSONAL_DATA_MEMBER];
  if (!isRecord(userData)) return null;
  let x: StepContext | undefined;
  let out: HashedOnArrival | null = null;
  for (const field of Object.keys(userData)) {
    const values = userData[field];
    if (!Array.isArray(values) || !Object.hasOwn(FIELD_NORMALIZERS, field)) continue;
    let changed = false;
    for (let j = 0; j < values.length; j++) {
      const v: unknown = values[j];
      if (typeof v !== 'string' || hexState(v) !== 0) continue;
      // Read before any value changes: the country must still be the one sent when a zip code needs it.
      x ??= contextOf(userData);
      const n = normalizeWith(field, v, x);
      out ??= { hashed: [], unusable: [], replaced: [] };
      if (n === null) {
        out.unusable.push({
          path: `${PERSONAL_DATA_MEMBER}.${field}[${j}]`,
          kind: (NORMALIZATION.fields as Readonly<Record<string, string>>)[field] ?? field,
        });
        continue;
      }
      const digest = hexState(n) !== 0 ? n : sha256(n);
      values[j] = digest;
      out.replaced.push([v, digest]);
      changed = true;
    }
    if (changed) out?.hashed.push(fieldPath(field));
  }
  return out;
}

/** `user_data.em` for `em`: made once per field, not once per event (C125: a batch has thousands). */
const FIELD_PATHS = new Map<string, string>();
function fieldPath(field: string): string {
  let p = FIELD_PATHS.get(field);
  if (p === undefined) {
    p = `${PERSONAL_DATA_MEMBER}.${field}`;
    FIELD_PATHS.set(field, p);
  }
  return p;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
