/**
 * An exact sliding-window log (C9: "no window ever admits more than its limit"). It keeps the admission
 * times of the last `limit` admitted requests in a ring buffer and admits a request at time `now` only when
 * fewer than `limit` of them fall in (now - window, now].
 *
 * Why exact: every admitted time stays in the ring until it is older than the window, so when a request is
 * admitted at t, the ring holds every admission of (t - window, t], and there are fewer than `limit`. Any
 * window (T - window, T] holds no more admissions than the window ending at its last admission t <= T,
 * which was just shown to hold at most `limit`. Fixed windows (and token buckets sized to the limit) admit
 * up to twice the limit around a window edge; this does not (see test/rate-limits.test.ts).
 *
 * Memory is one float per admitted request still in the window, at most `limit`; the ring grows by doubling
 * up to `limit`, so a key that sends little costs little. Every operation is O(1) amortized.
 */
export class SlidingLog {
  readonly limit: number;
  readonly windowMs: number;
  #buf: Float64Array;
  #start = 0;
  #size = 0;
  #last = Number.NEGATIVE_INFINITY;

  constructor(limit: number, windowMs: number) {
    if (!(limit >= 1) || !(windowMs > 0)) throw new Error(`bad limit ${limit} per ${windowMs} ms`);
    this.limit = limit;
    this.windowMs = windowMs;
    this.#buf = new Float64Array(Math.min(limit, 16));
  }

  /** Requests admitted in (now - window, now]. */
  count(now: number): number {
    this.#expire(this.#monotonic(now));
    return this.#size;
  }

  /** Admits a request at `now` if the window has room; returns whether it did. */
  tryAdmit(now: number): boolean {
    const t = this.#monotonic(now);
    this.#expire(t);
    if (this.#size >= this.limit) return false;
    if (this.#size === this.#buf.length) this.#grow();
    this.#buf[(this.#start + this.#size) % this.#buf.length] = t;
    this.#size++;
    this.#last = t;
    return true;
  }

  /**
   * Milliseconds until the oldest admission in the window leaves it, i.e. until one more request fits
   * again; 0 when the window is empty. When the window is full, this is exactly how long to wait.
   */
  msUntilSlot(now: number): number {
    const t = this.#monotonic(now);
    this.#expire(t);
    if (this.#size === 0) return 0;
    return (this.#buf[this.#start] as number) + this.windowMs - t;
  }

  /** Milliseconds until every admission in the window has left it; 0 when the window is empty (C115). */
  msUntilEmpty(now: number): number {
    const t = this.#monotonic(now);
    this.#expire(t);
    return this.#size === 0 ? 0 : this.#last + this.windowMs - t;
  }

  /** Whether the log holds nothing still in the window (so its key can be forgotten). */
  idle(now: number): boolean {
    return this.count(now) === 0;
  }

  /** A clock set back (tests, NTP) must not reorder the ring: time never runs backwards here. */
  #monotonic(now: number): number {
    return Math.max(now, this.#last);
  }

  #expire(now: number): void {
    const edge = now - this.windowMs;
    const cap = this.#buf.length;
    while (this.#size > 0 && (this.#buf[this.#start] as number) <= edge) {
      this.#start = (this.#start + 1) % cap;
      this.#size--;
    }
  }

  #grow(): void {
    const next = new Float64Array(Math.min(this.limit, this.#buf.length * 2));
    for (let i = 0; i < this.#size; i++) next[i] = this.#buf[(this.#start + i) % this.#buf.length] as number;
    this.#buf = next;
    this.#start = 0;
  }
}
