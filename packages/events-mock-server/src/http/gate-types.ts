import type { EventResult } from '@org/events-types';
import type { AuthFailure, Principal } from '../auth/directory.js';
import type { RequestProblems } from '../core/request-error.js';
import type { OperationId } from '../generated/routes.gen.js';
import type { KeptBody } from '../pipeline/prepare.js';
import type { AdAccountRecord } from '../store/interface/directory-data.js';
import type { LoggedDuplicate } from '../store/interface/request-log.js';

// The types of the gate's record (C101), apart from the gate's code: the gate (gate.ts), the fault answer
// (fault.ts) and the request log capture (request-log-capture.ts) all read the record, and the gate calls
// the other two; with the record's type here none of them imports another for a type (issue 36).

/** What the events handler knows of a 200 that the answer alone does not say (C60). */
export interface EventsOutcome {
  /** The handler's clock reading: the entry's received_at, and the seenAt of in-batch duplicates. */
  receivedAt: number;
  test: boolean;
  received: number;
  processed: number;
  /** The results that say something (failed, or warned), by index, ascending; the rest were plain. */
  notable: [number, EventResult][];
  /** Field paths named by each event's problems. */
  fields: Map<number, string[]>;
  duplicates: Map<number, LoggedDuplicate>;
  /** Failed events per message code, for the report timeline (C63). */
  failedCodes: Record<string, number>;
  eventNames: string[];
  /** C125: the user_data fields of each event the service hashed on arrival (`user_data.em`). */
  hashed: Map<number, string[]>;
}

/**
 * The one record of a request to an operation of the spec (C101): made by the onRequest hook, filled by the
 * gate's rows, handed to the handler, read by the error handler and the request log. The request's only
 * decoration; one object literal of one shape.
 */
export interface Gate {
  readonly op: OperationId;
  /** From the Authorization header, or the admin session cookie where the route takes it (C64, C71). */
  caller: Principal | AuthFailure | null;
  /** The ad account of the path, once the caller may reach it (account routes). */
  account: AdAccountRecord | null;
  /** The test flag of C7, decoded once from the checked query (false where the route has no test mode). */
  readonly test: boolean;
  /** The checked query; its problems wait in `problems` for the query's row of C2. */
  readonly query: unknown;
  /** The checked body, on routes whose body schema has generated checks, once the body row ran. */
  body: unknown;
  /** The body as parsed JSON, beside its checked form (a handler's own rules may need a failed item). */
  json: unknown;
  readonly problems: RequestProblems;
  /** When the request arrived (ms): the received time of a request log entry refused before the handler. */
  readonly receivedAt: number;
  /** The error body of a non-200 answer, kept by onSend for the request log (C96). */
  error: string | null;
  /** What the request log may keep of the body (C70), set where the body was prepared. */
  kept: KeptBody | null;
  /** What the events handler knows of a 200 beyond its answer (C60). */
  outcome: EventsOutcome | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's gate record (C101); null on routes outside the spec (docs, inspector, root). */
    gate: Gate | null;
  }
}
