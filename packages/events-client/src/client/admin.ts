import { ADMIN_OPERATIONS, type AdminOperationId, type AdminOperations } from '../generated/admin.gen.js';
import { RETRY_DEFAULTS, type RetryOptions } from './backoff.js';
import { type CallInput, call, type TransportOptions, url } from './transport.js';

type Parts<Id extends AdminOperationId> = AdminOperations[Id];

/** What a call of `Id` takes: its path parameters, its query and its body, each only when it has one. */
export type AdminInput<Id extends AdminOperationId> = ([Parts<Id>['path']] extends [never]
  ? object
  : { path: Parts<Id>['path'] }) &
  ([Parts<Id>['query']] extends [never] ? object : { query?: Parts<Id>['query'] }) &
  ([Parts<Id>['body']] extends [never] ? object : { body: Parts<Id>['body'] });

/** What a call of `Id` answers: the spec's schema, or void for an empty answer. */
export type AdminAnswer<Id extends AdminOperationId> = Parts<Id>['response'];

/** The operations `call` can read: those answering JSON or nothing (streams and files are read by URL). */
export type AdminCallId = {
  [K in AdminOperationId]: (typeof ADMIN_OPERATIONS)[K]['answer'] extends 'json' | 'empty' ? K : never;
}[AdminOperationId];

/** The input argument, optional when every member of it is. */
type Args<I> = Partial<I> extends I ? [input?: I] : [input: I];

export interface AdminClientOptions {
  /** The server's origin; '' (the default) for the origin of the page that calls. */
  baseUrl?: string;
  /** The admin token (a program); absent in a page the server serves, whose session cookie authenticates. */
  token?: string;
  /** The session's CSRF token (C71), sent only on the operations that require it with the cookie. */
  csrfToken?: () => string | null;
  /** Merged into every fetch: a page's `credentials`, `referrerPolicy`. */
  init?: RequestInit;
  fetch?: typeof globalThis.fetch;
  headers?: Record<string, string>;
  /** None by default: a person waits at a page, and the login's 429 is a throttle to respect (C106). */
  retry?: RetryOptions;
}

export interface AdminClient {
  /** Calls an admin operation by id; a non-2xx answer throws EventsApiError. */
  call<Id extends AdminCallId>(id: Id, ...input: Args<AdminInput<Id>>): Promise<AdminAnswer<Id>>;
  /** The URL of an operation (an EventSource, a download link): path encoded, query in the spec's order. */
  url<Id extends AdminOperationId>(id: Id, ...input: Args<Omit<AdminInput<Id>, 'body'>>): string;
}

/** The query as text, in the order of the spec; absent and empty values left out. */
function queryText(id: AdminOperationId, query: Record<string, unknown> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(ADMIN_OPERATIONS[id].query)) {
    const v = query[name];
    if (v !== undefined && v !== null && v !== '') out[name] = String(v);
  }
  return out;
}

function callInput(id: AdminOperationId, input: object = {}): CallInput {
  const i = input as { path?: Record<string, string>; query?: Record<string, unknown>; body?: unknown };
  return {
    params: i.path ?? {},
    query: queryText(id, i.query),
    ...(i.body !== undefined ? { body: JSON.stringify(i.body) } : {}),
  };
}

/** The admin API of the spec (C106), typed by operation, over the sender's transport. */
export function createAdminClient(options: AdminClientOptions = {}): AdminClient {
  const transport: TransportOptions = {
    baseUrl: options.baseUrl ?? '',
    retry: { ...RETRY_DEFAULTS, maxAttempts: 1, ...options.retry },
    ...(options.token !== undefined ? { token: options.token } : {}),
    ...(options.csrfToken ? { csrfToken: options.csrfToken } : {}),
    ...(options.init ? { init: options.init } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  };
  return {
    async call(id, ...[input]) {
      const r = await call(transport, id, callInput(id, input));
      if (!r.ok) throw r.error;
      return (ADMIN_OPERATIONS[id].answer === 'json' ? JSON.parse(r.text) : undefined) as AdminAnswer<
        typeof id
      >;
    },
    url: (id, ...[input]) => url(transport.baseUrl, id, callInput(id, input)),
  };
}
