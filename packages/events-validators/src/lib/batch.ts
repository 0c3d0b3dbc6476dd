import {
  type BatchResponse,
  type ConversionEvent,
  type EventResult,
  type EventStatus,
  PROBLEM_CODES,
} from '@org/events-types';
import { BATCH_FIELD, checkRequestBody, dedupTime, earlierWithKey } from '../generated/request.gen.js';
import { validateConversionEvent } from '../generated/validators.gen.js';
import { resolveContext, type ValidationContext } from './context.js';
import { type EventProblems, formatTemplate, joinMessages, type Problem, report } from './problems.js';
import { type RequestFailure, type RequestProblems, requestFailure } from './request.js';
import { forgetDigests } from './sha256-hex.js';

// Where the earlier event of a duplicate was seen: spec data (messages.yaml), told apart here and by the server.
const DUPLICATE = PROBLEM_CODES.duplicate_event.reasons;

/** The answer for one event: its status, every problem (uncapped), and the event as it may be stored. */
export interface EventValidation {
  status: EventStatus;
  errors: Problem[];
  warnings: Problem[];
  /**
   * The event as accepted when processed: values dropped by warnings removed, normalized values replaced
   * (opt_out_type "LDP" -> "ldp", upper-case digests lower-cased, a custom name as registered, a missing
   * currency filled from the context). It is the input object itself when nothing changed (nothing is
   * copied on the happy path), a copy otherwise; the input is never modified. null when failed.
   */
  accepted: ConversionEvent<string> | null;
}

/** The answer for a well-formed batch (C3): the seed 2.7 body, and per event what may be stored and why. */
export interface BatchValidation {
  ok: true;
  response: BatchResponse;
  /** `accepted[i]` answers `data[i]`: the event to store, or null when it failed. */
  accepted: Array<ConversionEvent<string> | null>;
  /** `problems[i]` answers `data[i]`: every error and warning, uncapped (the response caps, C3). */
  problems: EventProblems[];
}

/** What a caller that read the request bytes adds to validateBatch. */
export interface BatchOptions {
  /**
   * Errors found in the bytes of `data[i]` that its parsed value cannot show, such as a member name given
   * twice (C35: `JSON.parse` keeps only the last). The event fails with them first, before its other
   * problems, and counts as failed for in-batch dedup.
   */
  eventErrors?: ReadonlyMap<number, Problem[]>;
}

/** Checks one event against every per-event rule (C4). The within-batch dedup of C6 needs validateBatch. */
export function validateEvent(event: unknown, ctx?: ValidationContext): EventValidation {
  const o: EventProblems = { errors: [], warnings: [] };
  forgetDigests();
  const a = validateConversionEvent(event, resolveContext(ctx), o);
  const failed = o.errors.length > 0 || a === undefined;
  return {
    status: failed ? 'failed' : 'processed',
    errors: o.errors,
    warnings: o.warnings,
    accepted: failed ? null : (a as unknown as ConversionEvent<string>),
  };
}

/**
 * Checks a batch body: the request-level problems that depend on the body alone (C2: status 400, code
 * 4196, with details), else every event (C4), in order, with duplicates inside the batch (C6): an event
 * whose dedup key equals an earlier processed event's is processed with a `duplicate_event` warning, and
 * its `accepted[i]` stays non-null (the caller stores it once).
 */
export function validateBatch(
  body: unknown,
  ctx?: ValidationContext,
  options: BatchOptions = {},
): RequestFailure | BatchValidation {
  const r: RequestProblems = { error: undefined, details: [] };
  const data = checkRequestBody(body, r);
  if (data === undefined) return requestFailure(r);
  const c = resolveContext(ctx);
  forgetDigests();
  const events: EventResult[] = [];
  const accepted: Array<ConversionEvent<string> | null> = [];
  const problems: EventProblems[] = [];
  const seen = new Map<unknown, number | number[]>();
  let processed = 0;
  for (let i = 0; i < data.length; i++) {
    const o: EventProblems = { errors: [], warnings: [] };
    const a = validateConversionEvent(data[i], c, o);
    const found = options.eventErrors?.get(i);
    if (found) o.errors.unshift(...found);
    if (o.errors.length === 0 && a !== undefined) {
      const earlier = earlierWithKey(seen, a, i, accepted);
      if (earlier >= 0)
        report(o, 'duplicate_event', '', {
          reason: formatTemplate(DUPLICATE.in_batch, { field: BATCH_FIELD, index: earlier }),
          earlierTime: String(dedupTime(accepted[earlier] as unknown as Record<string, unknown>)),
        });
      processed++;
      accepted.push(a as unknown as ConversionEvent<string>);
      events.push({ status: 'processed', error_message: null, warning_message: joinMessages(o.warnings) });
    } else {
      accepted.push(null);
      events.push({
        status: 'failed',
        error_message: joinMessages(o.errors),
        warning_message: joinMessages(o.warnings),
      });
    }
    problems.push(o);
  }
  return {
    ok: true,
    response: { num_events_received: data.length, num_events_processed: processed, events },
    accepted,
    problems,
  };
}

/**
 * Adds a warning found outside this package (the server's cross-request duplicates, C6) to one event's
 * problems and rebuilds its `warning_message` the C3 way (joined with "; ", capped, never empty).
 */
export function appendWarning(result: EventResult, problems: EventProblems, warning: Problem): void {
  problems.warnings.push(warning);
  result.warning_message = joinMessages(problems.warnings);
}

/**
 * Replaces warnings of one event's problems found by the rules with what the caller knows better (a hashing
 * gateway's `not_normalizable_dropped` for a `hash_dropped`, C125), and rebuilds its `warning_message` the C3
 * way. `replace` answers each warning, itself when kept.
 */
export function replaceWarnings(
  result: EventResult,
  problems: EventProblems,
  replace: (warning: Problem) => Problem,
): void {
  problems.warnings = problems.warnings.map(replace);
  result.warning_message = joinMessages(problems.warnings);
}
