/**
 * Marks a value a warning removed from the accepted event (C4: the offending value is dropped, never
 * stored). Generated code writes it into its copy-on-write copy instead of deleting the key (which would
 * turn the object into a slow dictionary), then `compact` leaves it out; it never reaches the caller.
 */
export const DROP: unique symbol = Symbol('dropped');

/** A copy of `a` without the keys marked DROP. */
export function compact(a: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const r: Record<string, unknown> = {};
  for (const k in a) {
    const v = a[k];
    if (v !== DROP) r[k] = v;
  }
  return r;
}
