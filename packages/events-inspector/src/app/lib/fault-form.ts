// The add-fault form's fields as a FaultSpec of the admin API, or the reason they are not one. The server
// checks the spec again; this only keeps an obvious typo from a round trip and says which box is wrong.
import type { FaultKind, FaultSpec } from '../api/types.js';

const KINDS: readonly FaultKind[] = ['rate_limited', 'unavailable', 'latency'];

export function faultSpecOf(form: Record<string, string | undefined>): FaultSpec | string {
  const kind = form.kind as FaultKind;
  if (!KINDS.includes(kind)) return `Kind must be one of ${KINDS.join(', ')}.`;
  const spec: FaultSpec = { kind };
  const account = form.ad_account_id?.trim();
  if (account) spec.ad_account_id = account;
  const token = form.token_id?.trim();
  if (token) spec.token_id = token;
  const amount = Number(form.amount?.trim());
  if (form.mode === 'fraction') {
    if (!(amount > 0 && amount <= 1)) return 'A fraction must be more than 0 and at most 1.';
    spec.fraction = amount;
  } else {
    if (!Number.isInteger(amount) || amount < 1) return 'N must be a whole number of at least 1.';
    spec.count = amount;
  }
  if (kind === 'latency') {
    const ms = Number(form.latency_ms?.trim());
    if (!Number.isInteger(ms) || ms < 0) return 'Latency must be a whole number of milliseconds.';
    spec.latency_ms = ms;
  } else if (form.retry_after_seconds?.trim()) {
    const s = Number(form.retry_after_seconds.trim());
    if (!Number.isInteger(s) || s < 0) return 'Retry-After must be a whole number of seconds.';
    spec.retry_after_seconds = s;
  }
  return spec;
}
