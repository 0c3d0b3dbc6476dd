import { SingleBar } from 'cli-progress';
import type { Tally } from './report.js';

/** What a progress display needs: update with a tally, stop at the end. */
export interface Progress {
  update(t: Tally, position: number): void;
  stop(): void;
}

/**
 * A bar (cli-progress) on stderr when it is a terminal: position in the file (characters), events, processed,
 * failed; otherwise a plain line every 5 seconds, so CI logs show life without flooding.
 */
export function progress(total: number | null, tty: boolean): Progress {
  if (tty && total !== null) {
    const bar = new SingleBar({
      stream: process.stderr,
      format:
        '{bar} {percentage}% | {events} events | {processed} processed | {failed} failed | {retried} retried',
      hideCursor: true,
      fps: 5,
    });
    bar.start(total, 0, { events: 0, processed: 0, failed: 0, retried: 0 });
    return {
      update: (t, position) =>
        bar.update(position, {
          events: t.read,
          processed: t.processed,
          failed: t.failed + t.invalid,
          retried: t.retried,
        }),
      stop: () => bar.stop(),
    };
  }
  let last = Date.now();
  return {
    update(t) {
      const now = Date.now();
      if (now - last < 5000) return;
      last = now;
      process.stderr.write(
        `${t.read} events, ${t.processed} processed, ${t.failed + t.invalid} failed, ${t.retried} retried\n`,
      );
    },
    stop() {},
  };
}
