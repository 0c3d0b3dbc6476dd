import type { LimitIR } from '../ir/types.js';

/** 86400 -> "1 day", 60 -> "1 minute", 1 -> "1 second", 172800 -> "48 hours". */
export function duration(seconds: number): string {
  const units: [number, string][] = [
    [86400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ];
  for (const [size, name] of units)
    if (seconds % size === 0) {
      const n = seconds / size;
      if (name === 'day' && n > 1 && n % 7 !== 0) return `${seconds / 3600} hours`;
      return `${n} ${name}${n === 1 ? '' : 's'}`;
    }
  // A fraction of a second reads in milliseconds (0.1 -> "100 ms").
  return `${Math.round(seconds * 1000)} ms`;
}

/** 120000 -> "120,000". */
export function num(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

const MIB = 1024 * 1024;

/** How `{limit:KEY|format}` writes a limit in prose (C108); no format is `plain`. */
export const LIMIT_FORMATS = {
  /** The number as limits.yaml holds it; bytes in MiB when whole. */
  plain: (l: Pick<LimitIR, 'value' | 'unit'>) =>
    l.unit === 'bytes' && l.value % MIB === 0 ? `${l.value / MIB} MiB` : String(l.value),
  /** With thousands separators: "16,384". */
  grouped: (l: Pick<LimitIR, 'value' | 'unit'>) => num(l.value),
  /** A seconds or milliseconds limit as a duration: "48 hours", "7 days", "500 ms". */
  duration: (l: Pick<LimitIR, 'value' | 'unit'>) =>
    l.unit === 'milliseconds' && l.value % 1000 !== 0
      ? `${l.value} ms`
      : duration(l.unit === 'milliseconds' ? l.value / 1000 : l.value),
} as const;

export type LimitFormat = keyof typeof LIMIT_FORMATS;

/** Units a duration can be written for. */
export const TIME_UNITS: readonly LimitIR['unit'][] = ['seconds', 'milliseconds'];
