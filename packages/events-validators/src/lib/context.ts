/** What the caller knows about the request and the ad account; every field is optional. */
export interface ValidationContext {
  /** The server clock in Unix seconds; default `Math.floor(Date.now() / 1000)`. */
  now?: number;
  /**
   * The ad account currency (ISO-4217). It fills a missing currency next to a value (C4) and is named in the
   * `currency_defaulted` warning; without it the message says "the ad account currency".
   */
  currency?: string;
  /** Custom event names registered for the ad account (C10), matched case-insensitively. */
  customEventNames?: Iterable<string>;
}

/** The context resolved once per batch, as generated validators read it. */
export interface Ctx {
  now: number;
  currency: string | undefined;
  /** Lower-cased registered custom name -> the name as registered; undefined when there is none. */
  custom: Map<string, string> | undefined;
}

export function resolveContext(ctx: ValidationContext | undefined): Ctx {
  let custom: Map<string, string> | undefined;
  if (ctx?.customEventNames !== undefined)
    for (const name of ctx.customEventNames) {
      custom ??= new Map();
      custom.set(name.toLowerCase(), name);
    }
  return {
    now: ctx?.now ?? Math.floor(Date.now() / 1000),
    currency: ctx?.currency,
    custom,
  };
}
