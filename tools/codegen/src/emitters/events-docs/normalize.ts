import { createHash } from 'node:crypto';
import type { IR, NamedCodeIR } from '../../ir/types.js';
import { dataAt } from '../../kit/spec-at.js';

/**
 * The worked example of C5: a fixed raw value per normalization kind, normalized with the steps the spec
 * gives for that kind and hashed with SHA-256 at gen time. Only the raw inputs are written here; the steps,
 * their data (regions, countries, date layouts, gender words) and so the outputs come from the spec.
 */
export const RAW_INPUTS: Record<string, string> = {
  email: '  Jane.Doe@Example.COM ',
  phone: '001 (415) 555-0100',
  name: '  Müller ',
  city: 'Saint-Étienne',
  state: 'California',
  zip: '94107-1234',
  country: 'United States',
  date: '07/04/1990',
  gender: 'Female',
  external_id: '  CRM-00042 ',
  maid: ' 6D92078A-8246-4BA4-AE5B-76104861E7DC ',
};

export interface WorkedExample {
  field: string;
  kind: string;
  steps: string[];
  raw: string;
  normalized: string;
  sha256: string;
}

export function sha256(s: string): string {
  return createHash('sha256').update(s, 'utf8').digest('hex');
}

function lookup(codes: NamedCodeIR[], s: string): string {
  const hit = codes.find((c) => c.code === s || c.name.toLowerCase() === s || c.aliases.includes(s));
  return hit ? hit.code : s;
}

function step(ir: IR, name: string, s: string): string {
  const n = ir.normalization;
  switch (name) {
    case 'trim':
      return s.trim();
    case 'lower':
      return s.toLowerCase();
    case 'nfc':
      return s.normalize('NFC');
    case 'digits_only':
      return s.replace(/\D/g, '');
    case 'strip_leading_zeros':
      return s.replace(/^0+/, '');
    case 'letters_digits_only':
      return s.replace(/[^\p{L}\p{N}]/gu, '');
    case 'map_regions':
      return lookup(ir.codeLists.regions, s);
    case 'map_countries':
      return lookup(ir.codeLists.countries, s);
    case 'two_letters':
      if (!/^[a-z]{2}$/.test(s))
        dataAt(ir, 'normalization', 'kinds').fail('worked-example-invalid', { value: s, step: name });
      return s;
    case 'zip':
      // The worked example is a US zip (spec: zipFirstFiveDigits): first 5 digits; others lose spaces.
      return /^\d{5}(-?\d{4})?$/.test(s) && n.zipFirstFiveDigits.length
        ? s.slice(0, 5)
        : s.replace(/\s/g, '');
    case 'date_yyyymmdd':
      for (const f of n.dateFormats) {
        const m = new RegExp(f.pattern).exec(s);
        if (!m) continue;
        const part = (k: 'year' | 'month' | 'day') => m[f.order.indexOf(k) + 1]!;
        return `${part('year')}${part('month').padStart(2, '0')}${part('day').padStart(2, '0')}`;
      }
      return dataAt(ir, 'normalization', 'dateFormats').fail('worked-example-invalid', {
        value: s,
        step: name,
      });
    case 'require_at':
      // C126: an e-mail address has an @ between a name and a domain.
      if (!/.@./s.test(s))
        dataAt(ir, 'normalization', 'kinds').fail('worked-example-invalid', { value: s, step: name });
      return s;
    case 'map_gender':
      for (const [g, ws] of Object.entries(n.gender)) if (ws.includes(s)) return g;
      return s;
    default:
      return dataAt(ir, 'normalization', 'kinds').fail('worked-example-step', { step: name });
  }
}

/** One worked example per hashed user_data field, in field order. */
export function workedExamples(ir: IR, fields: { name: string; normalize: string }[]): WorkedExample[] {
  return fields.map((f) => {
    const kind = ir.normalization.kinds.find((k) => k.name === f.normalize);
    if (!kind)
      return dataAt(ir, 'normalization', 'kinds').fail('normalize-kind-unknown', { kind: f.normalize });
    const raw = RAW_INPUTS[kind.name];
    if (raw === undefined)
      return dataAt(ir, 'normalization', `kinds.${kind.name}`).fail('worked-example-missing');
    const normalized = kind.steps.reduce((s, name) => step(ir, name, s), raw);
    return { field: f.name, kind: kind.name, steps: kind.steps, raw, normalized, sha256: sha256(normalized) };
  });
}
