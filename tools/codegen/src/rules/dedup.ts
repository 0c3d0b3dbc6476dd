import type { DedupRule } from '../ir/types.js';
import { code, duration, limitText } from '../kit/md.js';
import type { ObjectKind } from './kind.js';

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
  summary: () => undefined,
};
