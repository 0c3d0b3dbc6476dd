import { LIMITS } from '@org/events-types';
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

const maxReceived = LIMITS.received_value_max_chars.value;

/** Cuts a received value so a detail never echoes a large or hostile input back (C3 applies the same cut). */
export function received(value: unknown): string {
  const s =
    typeof value === 'string'
      ? value
      : value === undefined
        ? 'nothing'
        : (JSON.stringify(value) ?? String(value));
  return s.length > maxReceived ? `${s.slice(0, maxReceived)}…` : s;
}

/** Fills `{name}` and the optional `[[ ... ]]` parts of a spec template (same syntax as messages.yaml). */
export function fillTemplate(template: string, params: Readonly<Record<string, string | number>>): string {
  const withOptional = template.replace(/\[\[(.*?)\]\]/g, (_, part: string) => {
    const names = [...part.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
    return names.every((n) => params[n] !== undefined) ? part : '';
  });
  return withOptional.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const v = params[name];
    return v === undefined ? whole : String(v);
  });
}

/** The detail of one request problem: its path and the spec template filled with typed parameters. */
export function detail<K extends RequestProblem>(
  key: K,
  path: string,
  params: RequestProblemParams[K],
): Detail {
  return { path, problem: fillTemplate(REQUEST_PROBLEM_TABLE[key].template, params) };
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
