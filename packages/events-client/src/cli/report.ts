import Table from 'cli-table3';
import type { EventOutcome } from '../index.js';

/** Exit codes of the CLI (C58); the README lists them. */
export const EXIT = {
  ok: 0,
  eventsFailed: 1,
  notSent: 2,
  badLine: 3,
  usage: 64,
  /** An unexpected failure of the CLI itself (sysexits EX_SOFTWARE). */
  internal: 70,
} as const;

/** The most distinct messages kept in a report (a file of unique messages must not grow it without end). */
const MAX_MESSAGES = 50;
/** The most per-line problems kept in the JSON report. */
const MAX_LINES = 100;
/**
 * Lines `events validate` prints before its summary unless `--verbose`: a file of 600 bad events is read by
 * its summary by message, not by 600 lines (issue 36).
 */
export const FIRST_LINES = 10;

export interface LineProblem {
  line: number;
  status: string;
  message: string;
}

/** What a run counted; printed as a table, plain lines or JSON. */
export class Tally {
  read = 0;
  badLines = 0;
  sent = 0;
  processed = 0;
  failed = 0;
  invalid = 0;
  notSent = 0;
  batches = 0;
  retried = 0;
  readonly byMessage = new Map<string, number>();
  readonly problems: LineProblem[] = [];
  private readonly started = Date.now();

  message(m: string): void {
    const n = this.byMessage.get(m);
    if (n !== undefined) this.byMessage.set(m, n + 1);
    else if (this.byMessage.size < MAX_MESSAGES) this.byMessage.set(m, 1);
    else this.byMessage.set('(other messages)', (this.byMessage.get('(other messages)') ?? 0) + 1);
  }

  problem(p: LineProblem): void {
    if (this.problems.length < MAX_LINES) this.problems.push(p);
  }

  bad(line: number, error: string): void {
    this.badLines++;
    this.problem({ line, status: 'bad_line', message: error });
  }

  outcome(line: number, r: EventOutcome): void {
    if (r.batch !== null) this.sent++;
    if (r.status === 'processed') this.processed++;
    else {
      if (r.status === 'failed') this.failed++;
      else if (r.status === 'invalid') this.invalid++;
      else this.notSent++;
      const m = r.errorMessage ?? r.status;
      this.message(r.status === 'not_sent' ? `not sent: ${m}` : m);
      this.problem({ line, status: r.status, message: m });
    }
  }

  get seconds(): number {
    return (Date.now() - this.started) / 1000;
  }

  exitCode(): number {
    if (this.badLines > 0) return EXIT.badLine;
    if (this.notSent > 0) return EXIT.notSent;
    if (this.failed > 0 || this.invalid > 0) return EXIT.eventsFailed;
    return EXIT.ok;
  }

  json(command: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    const s = this.seconds;
    return {
      command,
      ...extra,
      exitCode: this.exitCode(),
      events: this.read,
      badLines: this.badLines,
      sent: this.sent,
      processed: this.processed,
      failed: this.failed,
      invalid: this.invalid,
      notSent: this.notSent,
      batches: this.batches,
      retried: this.retried,
      seconds: Math.round(s * 1000) / 1000,
      eventsPerSecond: s > 0 ? Math.round(this.read / s) : null,
      failedByMessage: [...this.byMessage]
        .sort((a, b) => b[1] - a[1])
        .map(([message, count]) => ({ message, count })),
      problems: this.problems,
    };
  }

  /** The final summary: a table on a terminal, `key: value` lines otherwise. */
  render(command: string, tty: boolean): string {
    const j = this.json(command);
    const rows: [string, string | number][] = [
      ['events read', this.read],
      ...(command === 'send'
        ? ([
            ['sent', this.sent],
            ['processed', this.processed],
            ['failed', this.failed],
          ] as [string, number][])
        : [['valid', this.processed] as [string, number]]),
      ['invalid (not sent)', this.invalid],
      ...(command === 'send'
        ? ([
            ['not sent', this.notSent],
            ['batches', this.batches],
            ['requests retried', this.retried],
          ] as [string, number][])
        : []),
      ['bad lines', this.badLines],
      ['seconds', String(j.seconds)],
      ['events/s', String(j.eventsPerSecond ?? '-')],
    ];
    const messages = j.failedByMessage as { message: string; count: number }[];
    if (!tty) {
      const lines = rows.map(([k, v]) => `${k}: ${v}`);
      for (const m of messages.slice(0, 10)) lines.push(`failed ${m.count}x: ${m.message}`);
      return `${lines.join('\n')}\n`;
    }
    const t = new Table({ head: ['summary', ''] });
    for (const r of rows) t.push(r);
    let out = `${t.toString()}\n`;
    if (messages.length > 0) {
      const m = new Table({ head: ['count', 'message'], colWidths: [8, 100], wordWrap: true });
      for (const x of messages.slice(0, 10)) m.push([x.count, x.message]);
      out += `${m.toString()}\n`;
    }
    return out;
  }
}
