import { asBuffer, type BatchWrite } from '../interface/events.js';

/** Between two event texts in the one text of a batch: JSON text never holds it raw (C80). */
const SEPARATOR = 0x1e;

/**
 * The JSON texts of a batch's events as one text, joined by U+001E (C80): one parameter, no array literal
 * for the driver to escape and the database to parse. Spans of the source are copied into one buffer and
 * decoded once, not once per event.
 */
export function joinedEventJson(b: Pick<BatchWrite, 'events' | 'source'>): string {
  const events = b.events;
  if (events.every((e) => typeof e.json === 'string'))
    return events.map((e) => e.json as string).join('\u001e');
  const src = b.source ? asBuffer(b.source) : null;
  const parts: Buffer[] = [];
  const sep = Buffer.of(SEPARATOR);
  for (let i = 0; i < events.length; i++) {
    const json = (events[i] as (typeof events)[number]).json;
    if (i > 0) parts.push(sep);
    if (typeof json === 'string') parts.push(Buffer.from(json, 'utf8'));
    else if (src) parts.push(src.subarray(json.start, json.end));
    else throw new Error(`event ${i} is a span of a batch without a source`);
  }
  return Buffer.concat(parts).toString('utf8');
}
