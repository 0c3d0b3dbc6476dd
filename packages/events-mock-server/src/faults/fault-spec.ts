import { type FaultKind, type FaultSpec, LIMITS } from '@org/events-types';
import { type RequestProblems, received } from '../core/request-error.js';
import { type CheckedFaultSpec, checkFaultSpec } from '../generated/request-checks.gen.js';

/** The ids a fault may name: configured ad accounts and token ids (C65). */
export interface FaultTargets {
  accounts: ReadonlySet<string>;
  tokens: ReadonlySet<string>;
}

/** Fields of a fault that only some kinds use (C66), with those kinds. */
const KIND_FIELDS: readonly { field: 'latency_ms' | 'retry_after_seconds'; kinds: readonly FaultKind[] }[] = [
  { field: 'latency_ms', kinds: ['latency'] },
  { field: 'retry_after_seconds', kinds: ['rate_limited', 'unavailable'] },
];

/**
 * A fault spec from the admin API or the config (C65): the generated checks of FaultSpec (types, bounds,
 * enum, unknown keys), then what spans fields: exactly one of count and fraction, latency_ms with a latency
 * fault only, retry_after_seconds with a refusing fault only, and ids that name configured records. Every
 * problem is added to `p` with the path of its field; undefined when there is any.
 */
export function checkFault(raw: unknown, targets: FaultTargets, p: RequestProblems): FaultSpec | undefined {
  const spec = checkFaultSpec(raw, p);
  return spec === undefined ? undefined : checkFaultRules(spec, targets, p);
}

/** The rules of a fault that span fields or name configured records, on a spec that passed its own checks. */
export function checkFaultRules(
  spec: CheckedFaultSpec,
  targets: FaultTargets,
  p: RequestProblems,
): FaultSpec | undefined {
  const before = p.details.length;
  const kind = spec.kind as FaultKind;
  if ((spec.count === undefined) === (spec.fraction === undefined))
    p.add('fault_count_or_fraction', spec.count === undefined ? 'count' : 'fraction', {});
  if (kind === 'latency' && spec.latency_ms === undefined)
    p.add('fault_latency_missing', 'latency_ms', { max: LIMITS.fault_latency_max_ms.value });
  for (const { field, kinds } of KIND_FIELDS)
    if (spec[field] !== undefined && !kinds.includes(kind))
      p.add('fault_field_unused', field, { kinds: kinds.join(' and ') });
  if (spec.ad_account_id !== undefined && !targets.accounts.has(spec.ad_account_id))
    p.add('fault_account_unknown', 'ad_account_id', { received: received(spec.ad_account_id) });
  if (spec.token_id !== undefined && !targets.tokens.has(spec.token_id))
    p.add('fault_token_unknown', 'token_id', { received: received(spec.token_id) });
  if (p.details.length > before) return undefined;
  return { ...spec, kind };
}
