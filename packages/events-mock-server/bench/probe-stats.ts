/** What a bench child's probe (probe.mjs) answers to `stats`. */
export interface ProbeStats {
  /** Peak RSS of the process's life, in bytes. */
  maxRSS: number;
  /** RSS right after start, before any load, in bytes. */
  idleRSS: number;
  /** Event-loop delay p99 since `start`, in milliseconds. */
  lagP99: number;
  /** CPU time (user + system) since `start`, in microseconds. */
  cpuMicros: number;
  /** The window since `start`, on the clock of V8's CPU profiles (CLOCK_MONOTONIC, µs). */
  startUs: number;
  endUs: number;
}
