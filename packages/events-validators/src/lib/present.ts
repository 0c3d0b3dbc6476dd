/** Whether a field holds something: not absent, null, an empty string or an empty array. */
export function present(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return false;
  return !Array.isArray(v) || v.length > 0;
}
