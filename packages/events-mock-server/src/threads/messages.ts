import type { RelayedError } from './thread-error.js';

/** A call posted to a thread: the method it names and its arguments. */
export interface Call {
  id: number;
  method: string;
  args: unknown[];
}

/** A thread's answer to the call `id`: what the method returned, or the error it threw. */
export interface Answer {
  id: number;
  value?: unknown;
  error?: RelayedError;
}

/**
 * The id of the answer a thread posts once, unasked, when it has opened what it serves (or failed to): the
 * caller's first call may then wait for it instead of failing behind a thread that never started.
 */
export const READY_ID = 0;
