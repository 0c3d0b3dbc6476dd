import { CUSTOM_EVENT_NAME_RULE, STANDARD_EVENT_NAME_TABLE } from '@org/events-types';
import type { CustomEventTypeRow } from '../store/interface/directory.js';

/** Standard API name -> what it is usable for (seed 2.2), stored with each event (C11). */
const STANDARD_USAGE: ReadonlyMap<string, readonly string[]> = new Map(
  STANDARD_EVENT_NAME_TABLE.map((e) => [e.name, e.usableFor as readonly string[]]),
);

/** Tag name (seed 2.2, "Name in tag") -> API name, for tag events recorded through the admin API (C6). */
const TAG_TO_API: ReadonlyMap<string, string> = new Map(
  STANDARD_EVENT_NAME_TABLE.filter((e) => e.tagName !== null).map((e) => [e.tagName as string, e.name]),
);

export function isStandardEventName(name: string): boolean {
  return STANDARD_USAGE.has(name);
}

/**
 * Event names of one ad account: the standard table plus its registered custom event types (C10).
 * Custom names are case-insensitive, so they are stored and deduplicated under their registered spelling.
 */
export class AccountEventNames {
  readonly #custom = new Map<string, string>();

  constructor(custom: readonly CustomEventTypeRow[]) {
    for (const c of custom) this.#custom.set(c.name.toLowerCase(), c.name);
  }

  /** Registered custom names, for ValidationContext.customEventNames. */
  customNames(): string[] {
    return [...this.#custom.values()];
  }

  /** The name an accepted event is stored and deduplicated under, and its usage; null if unknown. */
  resolve(name: string): { name: string; usage: readonly string[] } | null {
    const usage = STANDARD_USAGE.get(name);
    if (usage) return { name, usage };
    const custom = this.#custom.get(name.toLowerCase());
    // C10: custom events are usable for audience creation only.
    return custom ? { name: custom, usage: CUSTOM_EVENT_NAME_RULE.usableFor } : null;
  }

  /** Like resolve, also accepting the tag form of standard names (Checkout -> checkout). */
  resolveTagName(name: string): string | null {
    return this.resolve(name)?.name ?? TAG_TO_API.get(name) ?? null;
  }
}
