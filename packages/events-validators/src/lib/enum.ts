import { type EventProblems, pathOf, received, report } from './problems.js';

/** Rule kind `enum`: `invalid_enum`; `allowed` is the generated list (`"web", "app_ios", ...`). */
export function invalidEnum(
  o: EventProblems,
  p: string,
  i: number,
  name: string,
  j: number,
  x: string,
  allowed: string,
): void {
  const path = pathOf(p, i, name, j);
  report(o, 'invalid_enum', path, { path, allowed, received: received(x) });
}

/**
 * Rule kind `enum` with `x-case-insensitive`: the allowed value `x` matches regardless of case (such as
 * opt_out_type "LDP" -> "ldp", C4), or undefined. The allowed value, not the sent one, is what is stored.
 */
export function caseInsensitiveEnum(x: string, values: readonly string[]): string | undefined {
  for (const v of values) if (v === x) return v;
  const lower = x.toLowerCase();
  for (const v of values) if (v.toLowerCase() === lower) return v;
  return undefined;
}
