import { ROUTES } from '../generated/routes.gen.js';
import { type Detail, detail, received } from './request-error.js';

const PARAMS = ['test', 'is_test'] as const;
const allowed = (name: (typeof PARAMS)[number]): readonly string[] =>
  ROUTES['events/create'].queryParams[name].enum ?? [];

/**
 * The test flag of C7 from `test` or its alias `is_test` (seed 4.1 rule 3). Only `true` and `false` are
 * accepted (C1); anything else is a problem answered 400, after the rate-limit row, in C2 order, so the
 * request counts as a live one until then.
 */
export function readTestFlag(query: unknown): { test: boolean; problems: Detail[] } {
  const q = (query ?? {}) as Record<string, unknown>;
  const problems: Detail[] = [];
  const values: string[] = [];
  for (const name of PARAMS) {
    const v = q[name];
    if (v === undefined) continue;
    if (typeof v === 'string' && allowed(name).includes(v)) values.push(v);
    else
      problems.push(
        detail('invalid_query_value', `query.${name}`, {
          received: received(Array.isArray(v) ? v.join(',') : v),
        }),
      );
  }
  if (values.length === 2 && values[0] !== values[1])
    problems.push(
      detail('invalid_field', 'query.is_test', { problem: 'disagrees with test; send one of them' }),
    );
  return { test: problems.length === 0 && values.includes('true'), problems };
}
