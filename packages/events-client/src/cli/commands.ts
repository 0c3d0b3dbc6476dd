import { stat } from 'node:fs/promises';
import { hashUserData, validateBatch } from '@org/events-validators';
import { createClient, SerializedEvent } from '../index.js';
import { readNdjson } from './ndjson.js';
import { type Progress, progress } from './progress.js';
import { FIRST_LINES, Tally } from './report.js';

export interface Io {
  /** Resolves when the text may be followed by more (back-pressure of a pipe). */
  out: (s: string) => void | Promise<void>;
  err: (s: string) => void;
  /** stdout is a terminal: summary as a table. */
  stdoutTty: boolean;
  /** stderr is a terminal: a progress bar. */
  stderrTty: boolean;
}

export interface SendArgs {
  file: string;
  account: string;
  token: string;
  baseUrl: string;
  test: boolean;
  concurrency: number;
  validate: boolean;
  hash: boolean;
  json: boolean;
  maxAttempts?: number;
}

async function sizeOf(file: string): Promise<number | null> {
  if (file === '-') return null;
  return (await stat(file)).size;
}

/** `events send`: streams the file through the client; the line of each result comes back in order (C57). */
export async function send(a: SendArgs, io: Io): Promise<number> {
  const tally = new Tally();
  const bar: Progress = a.json ? { update() {}, stop() {} } : progress(await sizeOf(a.file), io.stderrTty);
  const client = createClient({
    baseUrl: a.baseUrl,
    token: a.token,
    adAccountId: a.account,
    concurrency: a.concurrency,
    ...(a.maxAttempts ? { retry: { maxAttempts: a.maxAttempts } } : {}),
  });
  // Line numbers of the events in flight, oldest first: outcomes come back in the same order.
  const lines: number[] = [];
  let head = 0;
  let position = 0;
  async function* events() {
    for await (const l of readNdjson(a.file)) {
      position += l.chars;
      if ('error' in l) {
        tally.bad(l.line, l.error);
        continue;
      }
      tally.read++;
      lines.push(l.line);
      // The line as read: checked to be an object, sent without a second stringify.
      yield new SerializedEvent(l.text);
    }
  }
  const stream = client.streamEvents(events(), {
    test: a.test,
    validate: a.validate,
    hash: a.hash,
    onBatch: () => {
      tally.batches++;
    },
    onRetry: () => {
      tally.retried++;
    },
  });
  for await (const r of stream) {
    const line = lines[head++]!;
    // Drop consumed line numbers now and then, so the queue stays as long as what is in flight.
    if (head > 4096) {
      lines.splice(0, head);
      head = 0;
    }
    tally.outcome(line, r);
    bar.update(tally, position);
  }
  bar.stop();
  if (a.json)
    io.out(
      `${JSON.stringify(tally.json('send', { test: a.test, baseUrl: a.baseUrl, adAccountId: a.account }))}\n`,
    );
  else io.out(tally.render('send', io.stdoutTty));
  return tally.exitCode();
}

/** `events validate`: every event checked locally with @org/events-validators; nothing is sent. */
export async function validate(
  a: { file: string; json: boolean; verbose?: boolean },
  io: Io,
): Promise<number> {
  const tally = new Tally();
  // The first lines, then the summary by message; every line with --verbose.
  let lines = 0;
  const line = (text: string) => {
    if (a.json) return;
    if (a.verbose || lines < FIRST_LINES) io.out(text);
    lines++;
  };
  for await (const l of readNdjson(a.file)) {
    if ('error' in l) {
      tally.bad(l.line, l.error);
      line(`line ${l.line}: ${l.error}\n`);
      continue;
    }
    tally.read++;
    const v = validateBatch({ data: [l.value] });
    const r = v.ok ? v.response.events[0]! : null;
    if (r && r.status === 'processed') {
      tally.processed++;
      continue;
    }
    const message =
      r?.error_message ?? (v.ok ? 'failed' : v.error.details.map((d) => `${d.path} ${d.problem}`).join('; '));
    tally.invalid++;
    tally.message(message);
    tally.problem({ line: l.line, status: 'invalid', message });
    line(`line ${l.line}: ${message}\n`);
  }
  if (!a.json && !a.verbose && lines > FIRST_LINES)
    io.out(`… and ${lines - FIRST_LINES} more line(s) with problems (--verbose prints every one)\n`);
  if (a.json) io.out(`${JSON.stringify(tally.json('validate'))}\n`);
  else io.out(tally.render('validate', io.stdoutTty));
  return tally.exitCode();
}

/**
 * `events hash`: each line is raw user data, or an event holding it in user_data; out comes the same line
 * with the user data normalized and hashed (C5, hashUserData).
 */
export async function hash(a: { file: string }, io: Io): Promise<number> {
  let code = 0;
  for await (const l of readNdjson(a.file)) {
    if ('error' in l) {
      io.err(`line ${l.line}: ${l.error}\n`);
      code = 3;
      continue;
    }
    const isEvent = typeof l.value.user_data === 'object' && l.value.user_data !== null;
    try {
      const raw = (isEvent ? l.value.user_data : l.value) as Record<string, string | string[]>;
      const hashed = await hashUserData(raw);
      await io.out(`${JSON.stringify(isEvent ? { ...l.value, user_data: hashed } : hashed)}\n`);
    } catch (e) {
      io.err(`line ${l.line}: ${(e as Error).message}\n`);
      code = code || 1;
    }
  }
  return code;
}
