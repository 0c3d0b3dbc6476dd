import type { TimelineBucket } from '../api/types.js';
import { dateTimeOf } from '../lib/format.js';
import { chartOf } from '../lib/timeline.js';

const W = 720;
const H = 160;
/** Hours shown: the report's timeline covers the last 48 (C63). */
const HOURS = 48;

/** Events per hour over the timeline: processed (green) under failed (red), hand-drawn SVG. */
export function TimelineChart({ timeline }: { timeline: readonly TimelineBucket[] }) {
  if (!timeline.length) return <p class="muted">No events in the last 48 hours.</p>;
  // The last column is the current hour, or the latest bucket if the server's clock is ahead of ours.
  const now = Math.floor(Date.now() / 3_600_000) * 3600;
  const end = Math.max(now, ...timeline.map((b) => b.start));
  const chart = chartOf(timeline, W, H, HOURS, end);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H + 20}`} role="img" aria-label="Events per hour">
        <line x1="0" y1={H} x2={W} y2={H} class="axis" />
        <text x="2" y="10" class="tick">
          {chart.max}
        </text>
        {chart.bars.map((b) => (
          <g key={b.start}>
            <title>
              {`${dateTimeOf(b.start * 1000).slice(0, 16)}: ${b.processed.count} processed, ${b.failed.count} failed`}
            </title>
            {b.processed.count > 0 && (
              <rect x={b.x} y={b.processed.y} width={b.width} height={b.processed.height} class="processed" />
            )}
            {b.failed.count > 0 && (
              <rect x={b.x} y={b.failed.y} width={b.width} height={b.failed.height} class="failed" />
            )}
          </g>
        ))}
        {chart.bars.length > 0 && (
          <>
            <text x="0" y={H + 15} class="tick">
              {dateTimeOf(chart.bars[0]!.start * 1000).slice(0, 16)}
            </text>
            <text x={W} y={H + 15} class="tick" text-anchor="end">
              {dateTimeOf(chart.bars[chart.bars.length - 1]!.start * 1000).slice(0, 16)}
            </text>
          </>
        )}
      </svg>
      <figcaption>
        <span class="swatch processed" /> processed <span class="swatch failed" /> failed, per hour
      </figcaption>
      {chart.failedByCode.length > 0 && (
        <table class="compact">
          <thead>
            <tr>
              <th>Failures by message code (48 h)</th>
              <th class="n">Events</th>
            </tr>
          </thead>
          <tbody>
            {chart.failedByCode.map((f) => (
              <tr key={f.code}>
                <td>
                  <code>{f.code}</code>
                </td>
                <td class="n">{f.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </figure>
  );
}
