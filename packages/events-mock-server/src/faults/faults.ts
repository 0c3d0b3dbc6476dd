import { randomUUID } from 'node:crypto';
import { type FaultSpec, LIMITS } from '@org/events-types';
import type { Clock } from '../core/clock.js';

/** An injected fault and what it did so far (C65). */
export interface ActiveFault {
  readonly id: string;
  readonly spec: FaultSpec;
  /** Matching requests it still answers (a count fault); null for a fraction. */
  remaining: number | null;
  /** Requests it answered. */
  matched: number;
  /** Unix milliseconds. */
  readonly createdAt: number;
}

export interface FaultsOptions {
  clock: Clock;
  /** Uniform in [0, 1): decides whether a fraction fault fires; tests pass a scripted one. */
  random?: () => number;
  /** Most faults held (spec limit faults_max unless given). */
  max?: number;
}

const spent = (f: ActiveFault) => f.remaining === 0;

/**
 * The faults of this process (C65), oldest first. Everything runs synchronously on the event loop, so a
 * count is checked and decremented in one step: concurrent requests never take the same slot.
 */
export class Faults {
  readonly #items: ActiveFault[] = [];
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #max: number;

  constructor(options: FaultsOptions) {
    this.#clock = options.clock;
    this.#random = options.random ?? Math.random;
    this.#max = options.max ?? LIMITS.faults_max.value;
  }

  get max(): number {
    return this.#max;
  }

  list(): readonly ActiveFault[] {
    return this.#items;
  }

  /**
   * Adds a fault; null when `max` faults are active. Spent count faults stay listed so a CI job can read
   * what they did, and the oldest of them is dropped to make room.
   */
  add(spec: FaultSpec): ActiveFault | null {
    if (this.#items.length >= this.#max) {
      const i = this.#items.findIndex(spent);
      if (i < 0) return null;
      this.#items.splice(i, 1);
    }
    const f: ActiveFault = {
      id: randomUUID(),
      spec,
      remaining: spec.count ?? null,
      matched: 0,
      createdAt: this.#clock.now(),
    };
    this.#items.push(f);
    return f;
  }

  remove(id: string): boolean {
    const i = this.#items.findIndex((f) => f.id === id);
    if (i >= 0) this.#items.splice(i, 1);
    return i >= 0;
  }

  clear(): void {
    this.#items.length = 0;
  }

  /**
   * The fault that answers a request of `tokenId` to `adAccountId`, counted as answered; null when none
   * fires. The oldest matching fault that fires wins: a request gets one fault at most (C65).
   */
  take(adAccountId: string, tokenId: string): ActiveFault | null {
    for (const f of this.#items) {
      if (spent(f)) continue;
      if (f.spec.ad_account_id !== undefined && f.spec.ad_account_id !== adAccountId) continue;
      if (f.spec.token_id !== undefined && f.spec.token_id !== tokenId) continue;
      if (f.remaining === null) {
        if (!(this.#random() < (f.spec.fraction ?? 0))) continue;
      } else f.remaining--;
      f.matched++;
      return f;
    }
    return null;
  }
}
