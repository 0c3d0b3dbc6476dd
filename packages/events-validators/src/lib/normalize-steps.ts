import { COUNTRIES, NORMALIZATION, REGIONS } from '@org/events-types';

/**
 * C5 normalization steps, one function per step name of spec/data/normalization.yaml. The generated
 * normalizers (src/generated/normalizers.gen.ts) chain them per kind; a step returns null when the value
 * cannot be normalized (such as a date in no accepted layout), and the value is then not hashed.
 */

/** What a step may know beyond the value: the normalized country of the same user_data, for zip codes. */
export interface StepContext {
  country?: string | undefined;
}

export function trim(s: string, _x: StepContext): string {
  return s.trim();
}

export function lower(s: string, _x: StepContext): string {
  return s.toLowerCase();
}

export function nfc(s: string, _x: StepContext): string {
  return s.normalize('NFC');
}

export function digitsOnly(s: string, _x: StepContext): string {
  return s.replace(/\D+/g, '');
}

export function stripLeadingZeros(s: string, _x: StepContext): string {
  return s.replace(/^0+/, '');
}

/** Whitespace and punctuation removed; letters of any script (accented too), marks and digits kept. */
export function lettersDigitsOnly(s: string, _x: StepContext): string {
  return s.replace(/[^\p{L}\p{M}\p{N}]+/gu, '');
}

/**
 * C126: an e-mail address has an @ with something on each side; anything else (a name, a phone number, a
 * customer id sent as `em`) is no address, and its hash would match nobody. Null then.
 */
export function requireAt(s: string, _x: StepContext): string | null {
  return /.@./s.test(s) ? s : null;
}

/** Exactly two ASCII letters, or null (a name that no list maps is not a code). */
export function twoLetters(s: string, _x: StepContext): string | null {
  return /^[a-z]{2}$/.test(s) ? s : null;
}

/** Lookup key of a name: lower-case, dots removed, runs of spaces, dashes and underscores as one space. */
function nameKey(s: string): string {
  return s
    .toLowerCase()
    .replace(/\./g, '')
    .replace(/[\s_-]+/g, ' ')
    .trim();
}

function index(
  entries: readonly { code: string; name: string; aliases: readonly string[] }[],
): Map<string, string> {
  const m = new Map<string, string>();
  for (const e of entries)
    for (const n of [e.code, e.name, ...e.aliases]) if (!m.has(nameKey(n))) m.set(nameKey(n), e.code);
  return m;
}

let regions: Map<string, string> | undefined;
let countries: Map<string, string> | undefined;

/** US state and Canadian province names and aliases -> two-letter code (REGIONS); others unchanged. */
export function mapRegions(s: string, _x: StepContext): string {
  regions ??= index(REGIONS);
  return regions.get(nameKey(s)) ?? s;
}

/** Country names and aliases -> ISO-3166 alpha-2 lower-case code (COUNTRIES); others unchanged. */
export function mapCountries(s: string, _x: StepContext): string {
  countries ??= index(COUNTRIES);
  return countries.get(nameKey(s)) ?? s;
}

const FIRST_FIVE = new Set<string>(NORMALIZATION.zipFirstFiveDigits);
const US_SHAPE = /^\d{5}(?:[\s-]?\d{4})?$/;

/**
 * Zip codes: in a country of NORMALIZATION.zipFirstFiveDigits (us) the first 5 digits; elsewhere spaces
 * removed. Without a country, a value shaped like a US ZIP or ZIP+4 is taken for one.
 */
export function zip(s: string, x: StepContext): string | null {
  const firstFive = x.country !== undefined ? FIRST_FIVE.has(x.country) : US_SHAPE.test(s);
  if (!firstFive) return s.replace(/\s+/g, '');
  const digits = s.replace(/\D+/g, '');
  return digits.length >= 5 ? digits.slice(0, 5) : null;
}

let dateFormats: { re: RegExp; order: readonly ('year' | 'month' | 'day')[] }[] | undefined;

/** YYYYMMDD from the layouts of NORMALIZATION.dateFormats, tried in order; null for no layout or no such day. */
export function dateYyyymmdd(s: string, _x: StepContext): string | null {
  dateFormats ??= NORMALIZATION.dateFormats.map((f) => ({ re: new RegExp(f.pattern), order: f.order }));
  for (const f of dateFormats) {
    const m = f.re.exec(s);
    if (m === null) continue;
    const parts: Record<string, number> = {};
    f.order.forEach((name, k) => {
      parts[name] = Number(m[k + 1]);
    });
    const year = parts.year ?? 0;
    const month = parts.month ?? 0;
    const day = parts.day ?? 0;
    const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
    if (month < 1 || month > 12 || day < 1 || day > days) return null;
    return `${String(year).padStart(4, '0')}${String(month).padStart(2, '0')}${String(day).padStart(2, '0')}`;
  }
  return null;
}

let genders: Map<string, string> | undefined;

/** Words of NORMALIZATION.gender (male, female, non-binary...) -> m, f or n; null for others. */
export function mapGender(s: string, _x: StepContext): string | null {
  if (genders === undefined) {
    genders = new Map();
    for (const [code, words] of Object.entries(NORMALIZATION.gender))
      for (const w of words) genders.set(w, code);
  }
  return genders.get(s) ?? null;
}
