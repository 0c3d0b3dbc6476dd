/**
 * The one source of time of the server (point 6 of the issue): rate limits (C9), the event_time window (C4,
 * through ValidationContext.now), the dedup window (C6) and received times (C11) all read it, so tests move
 * time instead of sleeping.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to: for tests, here and in integrators' own suites. */
export class ManualClock implements Clock {
  #ms: number;

  constructor(startMs: number = Date.now()) {
    this.#ms = startMs;
  }

  now(): number {
    return this.#ms;
  }

  /** Sets the time, in milliseconds since the epoch. */
  set(ms: number): void {
    this.#ms = ms;
  }

  /** Moves the time forward (or back, with a negative value) by `ms` milliseconds. */
  advance(ms: number): void {
    this.#ms += ms;
  }

  /** Current time in Unix seconds (what event_time is measured in). */
  unixSeconds(): number {
    return Math.floor(this.#ms / 1000);
  }
}
