// An event's messages are one string (C3: joined with '; ', each starting with the path it is about), and a
// message may itself hold '; ' ("is missing; send ..."), so splitting on the separator would cut messages in
// two. Instead each named field's message is the text from where that path starts a message up to where the
// next named path starts one.

export interface FieldMessage {
  field: string;
  message: string;
}

const SEPARATOR = '; ';

/** Start offsets where `field` begins a message of `joined` (at 0 or right after the separator). */
function starts(joined: string, field: string): number[] {
  const found: number[] = [];
  let from = 0;
  for (;;) {
    const at = joined.indexOf(field, from);
    if (at < 0) return found;
    const after = joined[at + field.length];
    // `user_data.em` must not match the start of `user_data.em[0]` or `user_data.emx`.
    const whole = after === undefined || after === ' ';
    if (whole && (at === 0 || joined.slice(at - SEPARATOR.length, at) === SEPARATOR)) found.push(at);
    from = at + 1;
  }
}

/**
 * The messages of `joined` paired with the fields they name, in message order. A field that begins no
 * message is left out; text before the first named field (a message about the event as a whole) is
 * returned under the field ''.
 */
export function messagesByField(joined: string | null, fields: readonly string[]): FieldMessage[] {
  if (!joined) return [];
  const cuts: { at: number; field: string }[] = [];
  for (const f of new Set(fields)) for (const at of starts(joined, f)) cuts.push({ at, field: f });
  cuts.sort((a, b) => a.at - b.at || b.field.length - a.field.length);
  const unique = cuts.filter((c, i) => i === 0 || c.at !== cuts[i - 1]!.at);
  const out: FieldMessage[] = [];
  const head = unique.length ? unique[0]!.at : joined.length;
  if (head > 0) out.push({ field: '', message: trimSeparator(joined.slice(0, head)) });
  unique.forEach((c, i) => {
    const end = i + 1 < unique.length ? unique[i + 1]!.at : joined.length;
    out.push({ field: c.field, message: trimSeparator(joined.slice(c.at, end)) });
  });
  return out;
}

function trimSeparator(s: string): string {
  return s.endsWith(SEPARATOR) ? s.slice(0, -SEPARATOR.length) : s.trimEnd();
}

/**
 * C125: the request log's note naming the fields the service normalized and hashed on arrival (the spec's
 * `hashed_on_arrival`): the log puts it first in its copy of the warning message, but the client was answered
 * without it, so the page shows it apart from the warnings.
 */
export function isHashedNote(message: string): boolean {
  return message.startsWith('Normalized and hashed by this service on arrival');
}
