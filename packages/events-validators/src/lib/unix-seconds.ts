import { type EventProblems, pathOf, report } from './problems.js';

const UNITS: readonly [number, string][] = [
  [86400, 'day'],
  [3600, 'hour'],
  [60, 'minute'],
];

/** A spec limit in seconds in words: 604800 -> "7 days", 300 -> "5 minutes", 172800 -> "2 days". */
export function duration(seconds: number): string {
  for (const [size, unit] of UNITS)
    if (seconds >= size && seconds % size === 0) {
      const n = seconds / size;
      return `${n} ${unit}${n === 1 ? '' : 's'}`;
    }
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/** Unix seconds as an ISO-8601 UTC time without milliseconds ("2025-07-23T08:00:00Z"). */
export function isoTime(seconds: number): string {
  const d = new Date(seconds * 1000);
  return Number.isNaN(d.getTime()) ? 'out of range' : d.toISOString().replace('.000Z', 'Z');
}

/**
 * Rule kind `unix-seconds` (C4): values at or above `milliseconds` are milliseconds (the message gives the
 * seconds); otherwise at most `maxAge` seconds before `now` and `maxFuture` seconds after it.
 */
export function checkUnixSeconds(
  o: EventProblems,
  p: string,
  i: number,
  name: string,
  x: number,
  now: number,
  maxAge: number,
  maxFuture: number,
  milliseconds: number,
): void {
  if (x >= milliseconds) {
    const path = pathOf(p, i, name, -1);
    report(o, 'event_time_milliseconds', path, {
      path,
      received: String(x),
      suggestion: String(Math.floor(x / 1000)),
    });
  } else if (x < now - maxAge) {
    const path = pathOf(p, i, name, -1);
    report(o, 'event_time_too_old', path, {
      path,
      received: String(x),
      when: isoTime(x),
      maxAge: duration(maxAge),
    });
  } else if (x > now + maxFuture) {
    const path = pathOf(p, i, name, -1);
    report(o, 'event_time_in_future', path, {
      path,
      received: String(x),
      when: isoTime(x),
      maxFuture: duration(maxFuture),
    });
  }
}
