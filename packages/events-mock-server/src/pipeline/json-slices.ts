/**
 * Finds the JSON text of each element of the top-level `data` array of a request body that JSON.parse has
 * already accepted. An event the validators accept unchanged is then stored as the bytes the client sent
 * (semantically the same JSON) instead of being serialized again: re-serializing is a large part of the
 * cost of a 1000-event batch (C11, bench). Returns null when the body is not shaped as expected, and the
 * caller serializes instead; it never guesses.
 *
 * Only valid JSON reaches here, so the scanner only tracks strings (with escapes) and nesting.
 */
export function dataElementSlices(text: string): string[] | null {
  let i = ws(text, 0);
  if (text.charCodeAt(i) !== 0x7b /* { */) return null;
  i = ws(text, i + 1);
  let found: string[] | null = null;
  if (text.charCodeAt(i) === 0x7d /* } */) return null;
  for (;;) {
    if (text.charCodeAt(i) !== 0x22 /* " */) return null;
    const keyEnd = stringEnd(text, i);
    // JSON.parse keeps the last of repeated keys, so the last `data` wins here too. An escaped spelling of
    // "data" is not recognized, so such a body falls back to serializing (the caller checks the count).
    const isData = keyEnd - i === 6 && text.startsWith('"data"', i);
    i = ws(text, keyEnd);
    if (text.charCodeAt(i) !== 0x3a /* : */) return null;
    i = ws(text, i + 1);
    if (isData) {
      if (text.charCodeAt(i) !== 0x5b /* [ */) {
        found = null;
        i = valueEnd(text, i);
      } else {
        found = [];
        i = ws(text, i + 1);
        if (text.charCodeAt(i) === 0x5d /* ] */) i++;
        else
          for (;;) {
            const end = valueEnd(text, i);
            found.push(text.slice(i, end));
            i = ws(text, end);
            const c = text.charCodeAt(i);
            i = ws(text, i + 1);
            if (c === 0x5d /* ] */) break;
            if (c !== 0x2c /* , */) return null;
          }
      }
    } else i = valueEnd(text, i);
    i = ws(text, i);
    const c = text.charCodeAt(i);
    if (c === 0x7d /* } */) return found;
    if (c !== 0x2c /* , */) return null;
    i = ws(text, i + 1);
  }
}

function ws(t: string, i: number): number {
  for (;;) {
    const c = t.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
    else return i;
  }
}

/** Index just after the string starting at `i` (a quote). */
function stringEnd(t: string, i: number): number {
  let j = i + 1;
  for (;;) {
    const q = t.indexOf('"', j);
    if (q < 0) return t.length;
    let back = 0;
    while (t.charCodeAt(q - 1 - back) === 0x5c /* \ */) back++;
    if (back % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/** Index just after the value starting at `i`. */
function valueEnd(t: string, i: number): number {
  const c = t.charCodeAt(i);
  if (c === 0x22) return stringEnd(t, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    let j = i;
    for (;;) {
      const d = t.charCodeAt(j);
      if (d === 0x22) {
        j = stringEnd(t, j);
        continue;
      }
      if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        depth--;
        if (depth === 0) return j + 1;
      } else if (Number.isNaN(d)) return t.length;
      j++;
    }
  }
  // A number, true, false or null: up to the next delimiter.
  let j = i;
  for (;;) {
    const d = t.charCodeAt(j);
    if (
      d === 0x2c ||
      d === 0x7d ||
      d === 0x5d ||
      d === 0x20 ||
      d === 0x0a ||
      d === 0x0d ||
      d === 0x09 ||
      Number.isNaN(d)
    )
      return j;
    j++;
  }
}
