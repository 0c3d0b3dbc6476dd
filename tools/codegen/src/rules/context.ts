import type { LimitIR, LimitRef } from '../ir/types.js';
import type { Reader } from '../load/reader.js';

/** What a kind's parser reads an `x-rules` entry or a schema node with, besides the entry itself. */
export interface SchemaContext {
  file: string;
  /** Resolved OpenAPI document (x-limits and x-enum-from applied). */
  doc: Record<string, unknown>;
  limits: LimitIR[];
  groups: Record<string, string[]>;
  actionSources: string[];
  messageKinds: Set<string>;
}

/** Resolves a limit name written in a rule or schema into { key, value }, failing where it is written. */
export function limitRef(limits: LimitIR[], r: Reader): LimitRef {
  const key = r.string();
  const found = limits.find((l) => l.key === key);
  if (!found) r.fail('unknown-limit', { key });
  return { key, value: found.value, overflow: found.overflow };
}
