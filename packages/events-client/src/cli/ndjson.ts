import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/** One line of an NDJSON file: the object it holds, or why it holds none. Blank lines are skipped. */
export type Line =
  | { line: number; chars: number; value: Record<string, unknown> }
  | { line: number; chars: number; error: string };

/**
 * Reads FILE (or stdin for `-`) one line at a time (C58): memory holds a line, not the file, and the reader
 * pauses while the consumer does (async iteration pulls).
 */
export async function* readNdjson(file: string): AsyncGenerator<Line> {
  const input =
    file === '-' ? process.stdin : createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 });
  const rl = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  for await (const text of rl) {
    line++;
    const chars = text.length + 1;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      yield { line, chars, error: `not valid JSON: ${(e as Error).message}` };
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      yield { line, chars, error: `not a JSON object: ${Array.isArray(value) ? 'an array' : String(value)}` };
    else yield { line, chars, value: value as Record<string, unknown> };
  }
}
