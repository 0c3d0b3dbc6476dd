import type { LimitIR } from '../ir/types.js';
import { Reader } from '../load/reader.js';
import { limitRef } from '../rules/context.js';
import { completeResponses } from './responses.js';

const LIMIT_KEYWORDS = [
  'maxLength',
  'minLength',
  'maxItems',
  'minItems',
  'maximum',
  'minimum',
  'exclusiveMaximum',
];

/**
 * Returns a copy of the OpenAPI document where `x-limits: { maxLength: key }` also sets `maxLength: <value>`
 * and `x-enum-from: eventNames` sets `enum`, so ajv, renderers and readers see plain keywords while the
 * values stay defined once, in spec/data.
 */
export function resolveOpenApi(
  file: string,
  doc: Record<string, unknown>,
  limits: LimitIR[],
  enumSources: Record<string, string[]>,
): Record<string, unknown> {
  const copy = structuredClone(doc);
  const walk = (node: unknown, path: string): void => {
    if (Array.isArray(node)) {
      for (const [i, n] of node.entries()) walk(n, `${path}[${i}]`);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const obj = node as Record<string, unknown>;
    const xl = obj['x-limits'];
    if (xl !== undefined) {
      const r = new Reader(file, xl, `${path}.x-limits`);
      for (const [keyword, ref] of r.entries()) {
        if (!LIMIT_KEYWORDS.includes(keyword))
          ref.fail('x-limits-keyword', { keywords: LIMIT_KEYWORDS.join(', '), keyword });
        if (obj[keyword] !== undefined) ref.fail('x-limits-twice', { keyword });
        obj[keyword] = limitRef(limits, ref).value;
      }
    }
    const from = obj['x-enum-from'];
    if (from !== undefined) {
      const r = new Reader(file, from, `${path}.x-enum-from`);
      const values = enumSources[r.string()];
      if (!values) r.fail('unknown-enum-source', { sources: Object.keys(enumSources).join(', ') });
      obj.enum = values;
    }
    for (const [k, v] of Object.entries(obj)) walk(v, path ? `${path}.${k}` : k);
  };
  walk(copy, '');
  completeResponses(file, copy);
  return copy;
}
