import { createReadStream } from 'node:fs';

/** One line of an NDJSON file: the object it holds, or why it holds none. Blank lines are skipped. */
export type Line =
  | { line: number; chars: number; value: Record<string, unknown>; text: string }
  | { line: number; chars: number; error: string };

function parse(line: number, text: string): Line | null {
  const chars = text.length + 1;
  if (text.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { line, chars, error: `not valid JSON: ${(e as Error).message}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { line, chars, error: `not a JSON object: ${Array.isArray(value) ? 'an array' : String(value)}` };
  return { line, chars, value: value as Record<string, unknown>, text };
}

/**
 * Reads FILE (or stdin for `-`) one chunk at a time and yields its lines (C58). The stream is pulled
 * (async iteration of a readable pauses it while the consumer works), so memory holds a chunk and the
 * batches in flight, not the file. (readline's iterator buffers every line the stream pushes, whether
 * consumed or not: a fast disk fills memory with the file.)
 */
export async function* readNdjson(file: string): AsyncGenerator<Line> {
  const input =
    file === '-'
      ? process.stdin.setEncoding('utf8')
      : createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 16 });
  let rest = '';
  let line = 0;
  for await (const chunk of input as AsyncIterable<string>) {
    let text = rest + chunk;
    let start = 0;
    for (let nl = text.indexOf('\n', start); nl >= 0; nl = text.indexOf('\n', start)) {
      line++;
      const l = parse(
        line,
        text.charCodeAt(nl - 1) === 13 ? text.slice(start, nl - 1) : text.slice(start, nl),
      );
      start = nl + 1;
      if (l) yield l;
    }
    rest = text.slice(start);
    text = '';
  }
  if (rest !== '') {
    const l = parse(line + 1, rest.endsWith('\r') ? rest.slice(0, -1) : rest);
    if (l) yield l;
  }
}
