import { LIMITS } from '@org/events-types';
import { formatTemplate, received } from '@org/events-validators';
import {
  REQUEST_OUTCOMES,
  REQUEST_PROBLEM_TABLE,
  type RequestProblem,
  type RequestProblemParams,
} from '../generated/request-problems.gen.js';

/** One entry of `details` (C2): where the problem is and what to send instead. */
export interface Detail {
  path: string;
  problem: string;
}

/** Body of every request-level failure (C2). */
export interface ErrorBodyOut {
  code: number;
  message: string;
  details?: Detail[];
}

export type OutcomeKey = keyof typeof REQUEST_OUTCOMES;

/**
 * A request-level failure of C2. Thrown (or returned) anywhere in the pipeline; the error handler turns it
 * into the status, body and headers of its row. Status, code and message come from the spec tables, never
 * from here.
 */
export class RequestError extends Error {
  readonly status: number;
  readonly body: ErrorBodyOut;
  readonly headers: Record<string, string>;

  constructor(outcome: OutcomeKey, details: Detail[], headers: Record<string, string> = {}) {
    const o = REQUEST_OUTCOMES[outcome];
    super(o.message);
    this.name = 'RequestError';
    this.status = o.status;
    this.body = details.length
      ? { code: o.code, message: o.message, details }
      : { code: o.code, message: o.message };
    this.headers = headers;
  }
}

/**
 * Received values are quoted as the per-event messages quote them (C3): one rule, from
 * @org/events-validators, cut to LIMITS.received_value_max_chars (C31).
 */
export { received };

/** The detail of one request problem: its path and the spec template filled with typed parameters. */
export function detail<K extends RequestProblem>(
  key: K,
  path: string,
  params: RequestProblemParams[K],
): Detail {
  return { path, problem: formatTemplate(REQUEST_PROBLEM_TABLE[key].template, params) };
}

/** A RequestError for one problem; the outcome (status, code, message) is the problem's row of C2. */
export function requestError<K extends RequestProblem>(
  key: K,
  path: string,
  params: RequestProblemParams[K],
  headers?: Record<string, string>,
): RequestError {
  return new RequestError(REQUEST_PROBLEM_TABLE[key].outcome, [detail(key, path, params)], headers);
}

/** The status of a problem, for tests and metrics. */
export function statusOf(key: RequestProblem): number {
  return REQUEST_PROBLEM_TABLE[key].status;
}

/**
 * The problems of one request, collected in check order: the first one's outcome answers (C2), every
 * detail is kept up to LIMITS.messages_max_per_event, as per-event messages are capped (C3).
 */
export class RequestProblems {
  #outcome: OutcomeKey | undefined;
  readonly details: Detail[] = [];

  add<K extends RequestProblem>(key: K, path: string, params: RequestProblemParams[K]): void {
    this.#outcome ??= REQUEST_PROBLEM_TABLE[key].outcome;
    if (this.details.length < MAX_DETAILS) this.details.push(detail(key, path, params));
  }

  get any(): boolean {
    return this.#outcome !== undefined;
  }

  /** Throws the RequestError of the collected problems, if any. */
  throwIfAny(): void {
    if (this.#outcome !== undefined) throw new RequestError(this.#outcome, this.details);
  }
}

const MAX_DETAILS = LIMITS.messages_max_per_event.value;
