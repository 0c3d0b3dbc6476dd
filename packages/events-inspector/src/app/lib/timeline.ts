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

export function chartOf(timeline: readonly TimelineBucket[], width: number, height: number): Chart {
  const sorted = [...timeline].sort((a, b) => a.start - b.start);
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
