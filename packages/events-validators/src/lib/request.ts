import { LIMITS, REQUEST_ERRORS, REQUEST_PROBLEMS, type RequestProblemKey } from '@org/events-types';
import { formatTemplate, type MessageParams } from './problems.js';

/** One entry of `details` of a request-level failure (C2). */
export interface RequestDetail {
  path: string;
  problem: string;
}

/** What the generated request check collects: the C2 error of the first problem, and every detail. */
export interface RequestProblems {
  error: string | undefined;
  details: RequestDetail[];
}

/** The body of a request-level failure and its HTTP status (C2), as `validateBatch` returns it. */
export interface RequestFailure {
  ok: false;
  status: number;
  error: { code: number; message: string; details: RequestDetail[] };
}

const MAX_DETAILS = LIMITS.messages_max_per_event.value;

/**
 * Adds a request-level problem (REQUEST_PROBLEMS template). Details stop at LIMITS.messages_max_per_event,
 * as per-event messages do (C3), so a body of a million unknown keys does not answer a million details.
 */
export function requestProblem(
  r: RequestProblems,
  key: RequestProblemKey,
  path: string,
  params: MessageParams,
): void {
  const p = REQUEST_PROBLEMS[key];
  r.error ??= p.error;
  if (r.details.length < MAX_DETAILS) r.details.push({ path, problem: formatTemplate(p.template, params) });
}

/** The C2 answer for collected problems: status, code and message from REQUEST_ERRORS, never restated. */
export function requestFailure(r: RequestProblems): RequestFailure {
  const e = REQUEST_ERRORS.find((x) => x.key === r.error);
  if (e === undefined) throw new Error(`no request error ${String(r.error)} in REQUEST_ERRORS`);
  return { ok: false, status: e.status, error: { code: e.code, message: e.message, details: r.details } };
}
