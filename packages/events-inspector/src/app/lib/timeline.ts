// Geometry of the report's chart: one column per hour bucket of the timeline, processed and failed events
// stacked, scaled to the busiest hour. Pure, so it is tested without a browser.
import type { TimelineBucket } from '../api/types.js';

export interface Bar {
  start: number;
  x: number;
  width: number;
  processed: { y: number; height: number; count: number };
  failed: { y: number; height: number; count: number };
}

export interface Chart {
  bars: Bar[];
  max: number;
  /** Failed events per message code over the whole timeline, most first. */
  failedByCode: { code: string; count: number }[];
}

export function failedTotal(b: TimelineBucket): number {
  return Object.values(b.failed).reduce((a, n) => a + n, 0);
}

const HOUR = 3600;

/**
 * The chart of `timeline` over `hours` hour columns ending with the hour that starts at `end` (Unix s):
 * hours the server sent no bucket for are drawn empty, so one busy hour does not fill the whole width.
 */
export function chartOf(
  timeline: readonly TimelineBucket[],
  width: number,
  height: number,
  hours: number,
  end: number,
): Chart {
  const byStart = new Map(timeline.map((b) => [b.start, b]));
  const first = end - (hours - 1) * HOUR;
  const sorted: TimelineBucket[] = [];
  for (let start = first; start <= end; start += HOUR)
    sorted.push(byStart.get(start) ?? { start, processed: 0, failed: {} });
  const max = Math.max(1, ...sorted.map((b) => b.processed + failedTotal(b)));
  const step = sorted.length ? width / sorted.length : width;
  const barWidth = Math.max(1, step * 0.8);
  const scale = height / max;
  const bars = sorted.map((b, i) => {
    const failed = failedTotal(b);
    const ph = b.processed * scale;
    const fh = failed * scale;
    return {
      start: b.start,
      x: i * step + (step - barWidth) / 2,
      width: barWidth,
      processed: { y: height - ph, height: ph, count: b.processed },
      failed: { y: height - ph - fh, height: fh, count: failed },
    };
  });
  const codes = new Map<string, number>();
  for (const b of sorted)
    for (const [c, n] of Object.entries(b.failed)) codes.set(c, (codes.get(c) ?? 0) + n);
  const failedByCode = [...codes]
    .map(([code, count]) => ({ code, count }))
    .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
  return { bars, max, failedByCode };
}
