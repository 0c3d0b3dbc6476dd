import { code, duration, limitText } from '../emitters/events-docs/md.js';
import type { LimitRef } from '../ir/types.js';
import type { ObjectKind } from './kind.js';

export interface DedupRule {
  kind: 'dedup';
  severity: 'warning';
  key: string[];
  window: LimitRef;
}

/**
 * `x-dedup` on the batch request (C6): events repeating a key within the window. The batch check runs it
 * across the events (the validators' request file), not per object.
 */
export const dedup: ObjectKind<DedupRule> = {
  place: 'object',
  codes: ['duplicate_event'],
  reasons: { duplicate_event: ['api', 'in_batch', 'tag'] },
  code: () => [],
  doc: (r) =>
    `(${r.key.map(code).join(', ')}) is deduplicated within ${duration(r.window.value)} (${limitText(r.window)} s)`,
};
