/**
 * "Did you mean" suggestions for event names and keys (C4). A name is compared after lower-casing and turning
 * spaces and dashes into underscores (spec/data/event-names.yaml). A candidate is near when
 * - its optimal-string-alignment (restricted Damerau-Levenshtein) distance to the name, or to the name cut to
 *   the candidate's length (so `subscription` is near `subscribe`, `checkout_started` near `checkout`), is at
 *   most `maxDistance` and at most a third of the shorter of the two (so `fn` is not near `ln`, nor
 *   `category_name` near `np`), or
 * - the name has 4 or more characters and the candidate is the name with a prefix or a suffix joined by `_`
 *   (`price` -> `item_price`, `cart` -> `add_to_cart`).
 * The nearest wins; ties go to the alphabetically first candidate. Runs only on the failure path, and
 * remembers its last answers per candidate list: a batch repeats the same mistake (fn in every user_data).
 */

let prev2 = new Int32Array(64);
let prev = new Int32Array(64);
let cur = new Int32Array(64);

/**
 * Optimal string alignment distance (adjacent transpositions count 1) when it is at most `limit`, else
 * `limit + 1` (returned as soon as that is sure). Reuses three rows: no allocation per call.
 */
export function osaDistance(a: string, b: string, limit = Number.MAX_SAFE_INTEGER): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > limit) return limit + 1;
  if (n === 0 || m === 0) return Math.min(n + m, limit + 1);
  if (prev.length <= m) {
    prev2 = new Int32Array(m + 1);
    prev = new Int32Array(m + 1);
    cur = new Int32Array(m + 1);
  }
  for (let y = 0; y <= m; y++) prev[y] = y;
  for (let x = 1; x <= n; x++) {
    cur[0] = x;
    let rowMin = x;
    const ax = a.charCodeAt(x - 1);
    for (let y = 1; y <= m; y++) {
      const by = b.charCodeAt(y - 1);
      let d = Math.min(prev[y]! + 1, cur[y - 1]! + 1, prev[y - 1]! + (ax === by ? 0 : 1));
      if (x > 1 && y > 1 && ax === b.charCodeAt(y - 2) && a.charCodeAt(x - 2) === by)
        d = Math.min(d, prev2[y - 2]! + 1);
      cur[y] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > limit) return limit + 1;
    const t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return Math.min(prev[m]!, limit + 1);
}

/** Lower-cases and turns spaces and dashes into underscores. */
export function normalizeName(s: string): string {
  return s.toLowerCase().replace(/[\s-]+/g, '_');
}

function compute(name: string, candidates: readonly string[], maxDistance: number): string | undefined {
  const a = normalizeName(name);
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const b = c.toLowerCase();
    const cap = Math.min(maxDistance, Math.floor(Math.min(a.length, b.length) / 3));
    let score = osaDistance(a, b, cap);
    if (a.length > b.length) score = Math.min(score, osaDistance(a.slice(0, b.length), b, cap));
    if (score > cap) score = Number.POSITIVE_INFINITY;
    if (a.length >= 4 && a !== b && (b.endsWith(`_${a}`) || b.startsWith(`${a}_`)))
      score = Math.min(score, maxDistance + 0.5);
    if (score < bestScore || (score === bestScore && best !== undefined && c < best)) {
      best = c;
      bestScore = score;
    }
  }
  return bestScore === Number.POSITIVE_INFINITY ? undefined : best;
}

const CACHE_SIZE = 1024;
/** Names longer than this are not remembered (no real name is that long), so the cache stays small. */
const CACHED_MAX_LENGTH = 256;
const caches = new WeakMap<readonly string[], { maxDistance: number; answers: Map<string, string | null> }>();

/** The candidate nearest to `name`, or undefined when none is near enough (see the module comment). */
export function nearest(
  name: string,
  candidates: readonly string[],
  maxDistance: number,
): string | undefined {
  let cache = caches.get(candidates);
  if (cache === undefined || cache.maxDistance !== maxDistance) {
    cache = { maxDistance, answers: new Map() };
    caches.set(candidates, cache);
  }
  const hit = cache.answers.get(name);
  if (hit !== undefined) return hit ?? undefined;
  const found = compute(name, candidates, maxDistance);
  if (name.length <= CACHED_MAX_LENGTH) {
    if (cache.answers.size >= CACHE_SIZE) cache.answers.clear();
    cache.answers.set(name, found ?? null);
  }
  return found;
}
