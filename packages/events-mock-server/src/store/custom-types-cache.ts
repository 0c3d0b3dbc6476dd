import type { Clock } from '../core/clock.js';
import type { CustomEventTypeRow, DirectoryStore } from './interface/directory.js';

/** How long a cached list is trusted: other processes on the same database may register types (C10). */
const TTL_MS = 1000;

/**
 * The custom event types of each ad account, read by every events request (they are valid event names,
 * C10). Cached for a second, and dropped at once when this server creates or deletes one, so the common
 * request skips a store round trip.
 */
export class CustomTypesCache {
  readonly #store: DirectoryStore;
  readonly #clock: Clock;
  readonly #entries = new Map<string, { at: number; rows: Promise<CustomEventTypeRow[]> }>();

  constructor(store: DirectoryStore, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
  }

  get(adAccountId: string): Promise<CustomEventTypeRow[]> {
    const now = this.#clock.now();
    const hit = this.#entries.get(adAccountId);
    // A clock moved back (tests) also invalidates.
    if (hit && now - hit.at < TTL_MS && now >= hit.at) return hit.rows;
    const rows = this.#store.listCustomEventTypes(adAccountId);
    this.#entries.set(adAccountId, { at: now, rows });
    // A failed read is not cached: the next request asks the store again (and answers 503 if it still fails).
    rows.catch(() => this.#entries.delete(adAccountId));
    return rows;
  }

  invalidate(adAccountId: string): void {
    this.#entries.delete(adAccountId);
  }
}
