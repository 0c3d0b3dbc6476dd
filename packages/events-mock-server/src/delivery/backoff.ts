/**
 * When a failed delivery is tried again (C100): exponential from `baseMs`, capped at `maxMs`, with half of
 * it random so instances that failed together do not retry together; never before the receiver's own wait.
 */
export function retryDelay(
  attempts: number,
  o: { baseMs: number; maxMs: number; retryAfterMs?: number; random?: () => number },
): number {
  const exp = Math.min(o.maxMs, o.baseMs * 2 ** Math.min(attempts, 30));
  const jittered = exp / 2 + (exp / 2) * (o.random ?? Math.random)();
  // Whole milliseconds: the stores keep times as integers (PostgreSQL's bigint refuses a fraction, C113).
  return Math.ceil(Math.max(jittered, o.retryAfterMs ?? 0));
}

/** Seconds of a Retry-After (delta-seconds or an HTTP date) or x-ratelimit-reset, in ms; undefined if absent. */
export function waitOf(header: string | null, now: number): number | undefined {
  if (header === null || header === '') return undefined;
  const s = Number(header);
  if (Number.isFinite(s)) return Math.max(0, s * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
