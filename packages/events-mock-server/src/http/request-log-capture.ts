import { MESSAGE_JOIN } from '@org/events-types';
import { formatMessage, readsAsContact, redactedText, redactJson } from '@org/events-validators';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KeptBody } from '../pipeline/prepare.js';
import type { RequestLogError, RequestLogItem, RequestLogWrite } from '../store/interface/request-log.js';
import type { ServerContext } from './context.js';
import type { EventsOutcome, Gate } from './gate-types.js';
import { clientRequestId } from './request-id.js';

/**
 * The body a log entry keeps (C70): never a value refused or dropped as personal data. A body refused as a
 * whole (not JSON, no batch) or never prepared (a dependency failed first) is cleaned here, on the event loop
 * before the store sees it, by the rule's static part; only when it is kept. A large body
 * travels as its bytes, decoded by the store (off the event loop where it has a thread); a small one sits
 * in Node's shared pool, whose whole slab a message would copy, and is decoded here.
 */
function keptBodyOf(raw: Buffer, kept: KeptBody | null): string | Uint8Array | null {
  if (kept === null) {
    const cleaned = redactJson(raw.toString('utf8'));
    if (cleaned !== null) return cleaned;
  } else if (kept.kind === 'none') return null;
  else if (kept.kind === 'spliced') {
    const parts: Buffer[] = [];
    let at = 0;
    for (const s of kept.spans) {
      parts.push(raw.subarray(at, s.start), Buffer.from(s.text, 'utf8'));
      at = s.end;
    }
    parts.push(raw.subarray(at));
    return Buffer.concat(parts);
  }
  return raw.byteLength === raw.buffer.byteLength ? raw : raw.toString('utf8');
}

/**
 * A problem that quotes a received value holding `user_data` keeps the value's shape (C96, C70): the client
 * was answered with it, the log keeps it for a day.
 */
function loggedProblem(problem: string): string {
  const at = problem.indexOf('received ');
  if (at < 0 || !problem.includes('user_data', at)) return problem;
  const value = problem.slice(at + 'received '.length);
  return `${problem.slice(0, at)}received ${redactedText(value, false)}`;
}

/** A JSON string quoted in a message: what a problem says it received (`Invalid event_name: "..."`). */
const QUOTED = /"(?:[^"\\]|\\.)*"/g;

/**
 * An event's message as its log entry keeps it (C117): a quoted value that reads as a contact (an e-mail
 * address sent as event_name) is replaced by its shape. The client was answered with it; the log keeps it for
 * a day.
 */
function loggedMessage(message: string | null): string | null {
  if (message === null || !message.includes('"')) return message;
  return message.replace(QUOTED, (token) => {
    let value: unknown;
    try {
      value = JSON.parse(token);
    } catch {
      return token;
    }
    return typeof value === 'string' && readsAsContact(value) ? JSON.stringify(redactedText(value)) : token;
  });
}

/** The error body a refused request was answered, as its log entry keeps it (C96). */
function errorOf(payload: string | null): RequestLogError | null {
  if (payload === null) return null;
  try {
    const b = JSON.parse(payload) as { code?: unknown; message?: unknown; details?: unknown };
    if (typeof b.code === 'number' && typeof b.message === 'string') {
      const details = Array.isArray(b.details)
        ? (b.details as { path?: unknown; problem?: unknown }[])
            .filter((d) => typeof d?.path === 'string' && typeof d.problem === 'string')
            .map((d) => ({ path: d.path as string, problem: loggedProblem(d.problem as string) }))
        : [];
      return { code: b.code, message: b.message, details };
    }
  } catch {}
  // Every error answer is in the service's format (C42); anything else is not invented into one.
  return null;
}

function tokenIdOf(g: Gate): string | null {
  const auth = g.caller;
  return auth && typeof auth === 'object' ? auth.tokenId : null;
}

/**
 * The request log entry of one answered request to the events endpoint (C60), built after the answer was
 * sent (onResponse) from the request's gate record (C101): never the token, only its id; the body as
 * received when it was read and is small enough.
 */
export function eventsLogEntry(
  ctx: ServerContext,
  req: FastifyRequest,
  reply: FastifyReply,
  g: Gate,
): RequestLogWrite {
  const o = g.outcome;
  const raw = Buffer.isBuffer(req.body) ? req.body : null;
  const { maxBodyBytes, bodies } = ctx.requestLog.options;
  const small = raw !== null && raw.length <= maxBodyBytes;
  // C70: `problems` keeps the bodies of refused requests and of batches with a failed or warned event.
  const wanted =
    bodies === 'all' ||
    (bodies === 'problems' &&
      (reply.statusCode !== 200 ||
        !o ||
        o.processed < o.received ||
        o.notable.some(([, r]) => r.warning_message !== null)));
  const body = small && wanted ? keptBodyOf(raw, g.kept) : null;
  const adAccountId = (req.params as { ad_account_id?: string } | undefined)?.ad_account_id ?? '';
  const durationMs = Math.round(reply.elapsedTime * 100) / 100;
  const bodyTruncated = raw !== null && !small;
  // A 200 with its outcome: what its events said. Any other answer: the error its client was told.
  const ok = o !== null && reply.statusCode === 200 ? o : null;
  const { items, warned } = ok ? itemsOf(ok) : { items: [], warned: 0 };
  // One object literal of one shape (no spread): V8 builds it in one step (issue 25).
  return {
    requestId: req.id,
    clientRequestId: clientRequestId(req),
    adAccountId,
    tokenId: tokenIdOf(g),
    status: reply.statusCode,
    durationMs,
    body,
    bodyTruncated,
    receivedAt: ok ? ok.receivedAt : g.receivedAt,
    test: ok ? ok.test : g.test,
    events: ok ? ok.received : 0,
    processed: ok ? ok.processed : 0,
    failed: ok ? ok.received - ok.processed : 0,
    warned,
    eventNames: ok ? ok.eventNames : [],
    error: reply.statusCode === 200 ? null : errorOf(g.error),
    items,
    // C7: test requests change no counter, the timeline's included.
    timeline: ok && !ok.test ? { processed: ok.processed, failedCodes: ok.failedCodes } : null,
  };
}

/**
 * Only events with something to say: a clean processed event is what the counts already tell, and the store
 * restores it when read (a clean 1000-event batch builds no item at all).
 */
function itemsOf(o: EventsOutcome): { items: RequestLogItem[]; warned: number } {
  const items: RequestLogItem[] = [];
  let warned = 0;
  // The events with a result to tell, a field named or an earlier sighting, in index order.
  const results = new Map(o.notable);
  const indexes = new Set(results.keys());
  for (const i of o.fields.keys()) indexes.add(i);
  for (const i of o.duplicates.keys()) indexes.add(i);
  const hashedFirst = hashedNotes(o.hashed);
  for (const i of hashedFirst.keys()) indexes.add(i);
  for (const index of [...indexes].sort((a, b) => a - b)) {
    const r = results.get(index);
    // The answer's count: a note of the log below is no warning its client received.
    if (r !== undefined && r.warning_message !== null) warned++;
    const hashed = hashedFirst.get(index);
    const problemFields = o.fields.get(index) ?? [];
    const fields = hashed ? [...new Set([...problemFields, ...hashed.fields])] : problemFields;
    const duplicateOf = o.duplicates.get(index) ?? null;
    if (r === undefined && !fields.length && !duplicateOf) continue;
    items.push({
      index,
      status: r?.status ?? 'processed',
      errorMessage: loggedMessage(r?.error_message ?? null),
      warningMessage: withHashedNote(loggedMessage(r?.warning_message ?? null), hashed),
      fields,
      duplicateOf,
    });
  }
  return { items, warned };
}

/** C125: the events that carry a request's notes of hashed fields, by index. */
interface HashedNote {
  fields: readonly string[];
  /** Later events of the request whose hashed fields were the same. */
  others: number;
}

/**
 * C125: one note per distinct list of fields the service hashed in a request, on the first event with it,
 * counting the later events with the same list: a 1000-event batch of one sender hashed alike logs one item,
 * not a thousand (a clean batch logs none, C60).
 */
function hashedNotes(hashed: ReadonlyMap<number, readonly string[]>): Map<number, HashedNote> {
  const first = new Map<string, HashedNote & { index: number }>();
  for (const [index, fields] of hashed) {
    const key = fields.join(', ');
    const seen = first.get(key);
    if (seen) seen.others++;
    else first.set(key, { index, fields, others: 0 });
  }
  return new Map([...first.values()].map(({ index, ...note }) => [index, note]));
}

/**
 * C125: the log's copy of an event's warning message, after its `hashed_on_arrival` note, so the request
 * detail and the inspector say what the service changed. First, so the messages after it still begin where
 * their fields do. The log's only: the client's answer has no such warning, and `warned` counts the answer's.
 */
function withHashedNote(message: string | null, hashed: HashedNote | undefined): string | null {
  if (!hashed) return message;
  const note = formatMessage('hashed_on_arrival', {
    fields: hashed.fields.join(', '),
    others: hashed.others > 0 ? hashed.others : undefined,
  });
  return message === null ? note : `${note}${MESSAGE_JOIN.separator}${message}`;
}
