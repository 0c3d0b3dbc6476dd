import type { FastifyReply, FastifyRequest } from 'fastify';
import { authorizeAccountRoute, authorizeAdmin } from '../auth/authorize.js';
import type { AuthFailure, Principal } from '../auth/directory.js';
import { checkBody, checkQuery } from '../core/request-checks.js';
import { RequestProblems } from '../core/request-error.js';
import {
  type CheckedBodies,
  type CheckedQueries,
  OBJECT_CHECKS,
  QUERY_CHECKS,
} from '../generated/request-checks.gen.js';
import { type OperationId, ROUTES } from '../generated/routes.gen.js';
import type { AdAccountRecord } from '../store/interface/directory-data.js';
import { bodyEncoding, checkDeclaredLength, hasBody, parseJsonBody, requireJson } from './body.js';
import type { ServerContext } from './context.js';
import { checkCsrfToken, checkSameOrigin, needsCsrf, sessionCookie, takesSession } from './csrf.js';
import { answerFault } from './fault.js';
import type { Gate } from './gate-types.js';
import { enforceRateLimit } from './rate-limit.js';

type Route = (typeof ROUTES)[OperationId];

type Schemes<Op extends OperationId> = (typeof ROUTES)[Op]['security'][number]['scheme'];
/** Operations whose gate resolves the ad account of the path: secured, not by the admin token. */
type AccountOp = {
  [Op in OperationId]: 'ad_account_id' extends keyof (typeof ROUTES)[Op]['pathParams']
    ? 'admin_token' extends Schemes<Op>
      ? never
      : Op
    : never;
}[OperationId];

/** What a handler receives: the gate record with its operation's checked query, body and account. */
export type Checked<Op extends OperationId> = Omit<Gate, 'query' | 'body' | 'account' | 'caller'> & {
  readonly caller: Principal | AuthFailure | null;
  readonly query: Op extends keyof CheckedQueries ? CheckedQueries[Op] : undefined;
  readonly body: Op extends keyof CheckedBodies ? CheckedBodies[Op] : undefined;
  readonly account: Op extends AccountOp ? AdAccountRecord : null;
};

export type Handler<Op extends OperationId> = (
  req: FastifyRequest,
  reply: FastifyReply,
  input: Checked<Op>,
) => Promise<unknown>;

export type Handlers = { [Op in OperationId]: Handler<Op> };

/** How the gate treats each operation, worked out once from its ROUTES entry. */
interface Plan {
  /** The name of the test flag among the query's parameters (C7), or null. */
  testParam: string | null;
  /** `admin`: the admin token or session; `account`: rows 401, 404, 403 of the path's account; or none. */
  auth: 'admin' | 'account' | null;
  /**
   * C115: an admin operation (one that takes the admin token or session, and the login): failed admin
   * authentications are counted and a throttled client is refused before its credentials are looked at.
   */
  throttled: boolean;
  /** Whether the body has generated checks, run by the body row before the handler. */
  checksBody: boolean;
  /**
   * The record of an open route without a query or body to check (health, metrics): made once, frozen,
   * shared by its requests, which then cost nothing more than before the gate.
   */
  shared: Gate | null;
}

function planOf(route: Route, op: OperationId): Plan {
  const schemes = route.security.map((s) => s.scheme as string);
  // The session's own routes (only the session as an alternative) read or end the session themselves.
  const sessionOnly = schemes.length > 0 && schemes.every((s) => s === 'admin_session');
  const body = route.requestBody as string | null;
  const open = schemes.length === 0 && body === null && QUERY_CHECKS[op] === undefined;
  return {
    testParam: route.testMode ? (QUERY_CHECKS[op]?.find((c) => c.aliasOf === null)?.name ?? null) : null,
    auth: schemes.length === 0 || sessionOnly ? null : schemes.includes('admin_token') ? 'admin' : 'account',
    throttled: route.loginThrottle || schemes.includes('admin_token') || schemes.includes('admin_session'),
    checksBody: body !== null && OBJECT_CHECKS[body] !== undefined,
    shared: open ? Object.freeze(record(op, null, undefined, false, new RequestProblems(), 0)) : null,
  };
}

/** A gate record: one object literal of one shape for every request. */
function record(
  op: OperationId,
  caller: Gate['caller'],
  query: unknown,
  test: boolean,
  problems: RequestProblems,
  receivedAt: number,
): Gate {
  return {
    op,
    caller,
    account: null,
    test,
    query,
    body: undefined,
    json: undefined,
    problems,
    receivedAt,
    error: null,
    kept: null,
    outcome: null,
  };
}

const PLANS = Object.fromEntries(
  (Object.keys(ROUTES) as OperationId[]).map((op) => [op, planOf(ROUTES[op], op)]),
) as Record<OperationId, Plan>;

/**
 * The onRequest part (C77: one hook per stage): the record, the checked query and the caller, before any
 * row of C2 is answered. A state-changing call with the admin session cookie must come from this server's
 * origin with the session's CSRF token (C71); its refusal is returned.
 */
export function openGate(ctx: ServerContext, req: FastifyRequest, op: OperationId): Error | undefined {
  const plan = PLANS[op];
  if (plan.shared !== null) {
    req.gate = plan.shared;
    return undefined;
  }
  const route = ROUTES[op];
  const problems = new RequestProblems();
  const checks = QUERY_CHECKS[op];
  const query = checks === undefined ? undefined : checkQuery(checks, req.query, problems);
  const caller = route.security.length ? ctx.directory.authenticate(req.headers.authorization) : null;
  const test = plan.testParam !== null && !problems.any && query?.[plan.testParam] === 'true';
  const g = record(op, caller, query, test, problems, ctx.clock.now());
  req.gate = g;
  if (!plan.throttled) return undefined;
  // C115: a throttled client is refused before its credentials are looked at, so neither the right token
  // nor a live session (403 without its CSRF token) tells it a guess was right.
  const client = req.ip;
  const throttled = ctx.authThrottle.refusal(client);
  if (throttled !== undefined) return throttled;
  if (caller !== 'auth_missing') {
    // An Authorization header that is not the admin token, a token of the API included, is a failure.
    if (caller !== null && (typeof caller === 'string' || caller.kind !== 'admin'))
      ctx.authThrottle.failed(client);
    return undefined;
  }
  // C64: an admin route takes the session cookie when no Authorization header is sent.
  if (!takesSession(route)) return undefined;
  const cookie = sessionCookie(req);
  const session = ctx.sessions.get(cookie);
  if (!session) {
    // C115: a cookie naming no live session is a failure; no cookie at all is no attempt.
    if (cookie !== undefined) ctx.authThrottle.failed(client);
    return undefined;
  }
  if (needsCsrf(route))
    try {
      checkSameOrigin(req, ctx.publicOrigin);
      checkCsrfToken(req, session);
    } catch (e) {
      return e as Error;
    }
  g.caller = { kind: 'admin', tokenId: 'admin' };
  return undefined;
}

/**
 * The rows of C2 that need only the request line and headers, in order, before a byte of the body is read
 * (C40): 413 on the declared length and 415, then 401, 404, 403, injected faults (C65), 429 and the query's
 * 400. Returns a promise only when a row has something to wait for (a fault, a limit to count).
 */
export function passHeaderRows(
  ctx: ServerContext,
  req: FastifyRequest,
  reply: FastifyReply,
  g: Gate,
): Promise<void> | undefined {
  const route = ROUTES[g.op];
  const plan = PLANS[g.op];
  if (route.requestBody !== null || (route.method === 'POST' && hasBody(req))) {
    checkDeclaredLength(req); // 413
    requireJson(req); // 415
    bodyEncoding(req); // 415
  }
  if (plan.auth === 'admin')
    authorizeAdmin(g.caller); // 401
  else if (plan.auth === 'account') {
    const id = (req.params as { ad_account_id: string }).ad_account_id;
    g.account = authorizeAccountRoute(route, g.caller, id, ctx.directory); // 401, 404, 403
    if (route.faults) {
      const fault = ctx.faults.take(g.account.id, (g.caller as Principal).tokenId);
      if (fault !== null) return faultThenLimit(ctx, reply, g, answerFault(ctx, reply, fault, g));
    }
  }
  return limitAndQuery(ctx, reply, g, route);
}

/** A latency fault waits, then the request goes on through its remaining rows. */
async function faultThenLimit(
  ctx: ServerContext,
  reply: FastifyReply,
  g: Gate,
  fault: Promise<void>,
): Promise<void> {
  await fault;
  await limitAndQuery(ctx, reply, g, ROUTES[g.op]);
}

/** Row 429 (the route's category of C9; the admin throttle of C115 ran in openGate), then the query's 400. */
function limitAndQuery(
  ctx: ServerContext,
  reply: FastifyReply,
  g: Gate,
  route: Route,
): Promise<void> | undefined {
  const counting =
    g.account !== null
      ? enforceRateLimit(
          ctx.limiter,
          reply,
          route.rateLimitCategory,
          g.caller as Principal,
          g.account.id,
          g.test,
        )
      : undefined;
  if (counting !== undefined) return queryAfter(counting, g.problems);
  g.problems.throwIfAny(); // 400
  return undefined;
}

async function queryAfter(counting: Promise<void>, problems: RequestProblems): Promise<void> {
  await counting;
  problems.throwIfAny(); // 400
}

const withRules = new WeakSet<object>();

/**
 * Marks a handler that has rules of its own on a checked body (names of configured records, rules across
 * fields): their problems join those of the generated checks in one 400, so the body row leaves them in
 * `problems` whenever the body is there at all, and the handler ends its rules with `problems.throwIfAny()`.
 */
export function withBodyRules<Op extends OperationId>(handler: Handler<Op>): Handler<Op> {
  withRules.add(handler);
  return handler;
}

/**
 * The body row of C2 for a body with generated checks: JSON, then its schema. Its problems are answered
 * here, unless the handler has rules of its own and the body is there to apply them to (array items that
 * failed are handed over as undefined).
 */
function passBodyRow(req: FastifyRequest, g: Gate, rules: boolean): void {
  g.json = parseJsonBody(req);
  g.body = checkBody(OBJECT_CHECKS, ROUTES[g.op].requestBody as string, g.json, g.problems);
  if (!rules || g.body === undefined) g.problems.throwIfAny();
}

/** The route handler fastify calls: the body row where the route has one, then the handler with its record. */
export function gated<Op extends OperationId>(op: Op, handler: Handler<Op>) {
  if (PLANS[op].checksBody) {
    const rules = withRules.has(handler);
    return async (req: FastifyRequest, reply: FastifyReply) => {
      const g = req.gate as Gate;
      passBodyRow(req, g, rules);
      return handler(req, reply, g as unknown as Checked<Op>);
    };
  }
  return (req: FastifyRequest, reply: FastifyReply) =>
    handler(req, reply, req.gate as unknown as Checked<Op>);
}
