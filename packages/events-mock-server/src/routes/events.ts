import {
  type BatchResponse,
  type EventResult,
  type EventStatus,
  LIMITS,
  PROBLEM_CODES,
} from '@org/events-types';
import { appendWarning, type EventProblems, formatMessage, formatTemplate } from '@org/events-validators';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requestError } from '../core/request-error.js';
import { JSON_CONTENT_TYPE } from '../generated/routes.gen.js';
import type { ServerContext } from '../http/context.js';
import { AccountEventNames } from '../http/event-names.js';
import type { Checked } from '../http/gate.js';
import type { EventsOutcome } from '../http/gate-types.js';
import { withStore } from '../http/storage.js';
import type { ScanProblem } from '../pipeline/json-scan.js';
import { notableResults, type PrepareContext, type Prepared } from '../pipeline/prepare.js';
import type { BatchWrite, Earlier, EventToStore } from '../store/interface/events.js';
import type { LoggedDuplicate } from '../store/interface/request-log.js';

const DEDUP_WINDOW_MS = LIMITS.dedup_window_seconds.value * 1000;

/** Where the earlier event was seen, as the spec words it (messages.yaml `duplicate_event` reasons). */
const DUPLICATE = PROBLEM_CODES.duplicate_event.reasons;

/** The duplicate warning of C6: names the earlier event's source and event_time. */
function duplicateMessage(e: Earlier): string {
  const reason =
    e.source === 'tag'
      ? DUPLICATE.tag
      : formatTemplate(DUPLICATE.api, { seenAt: new Date(e.seenAt).toISOString() });
  return formatMessage('duplicate_event', { reason, earlierTime: e.eventTime });
}

/** The 400 of a body whose bytes break C35-C37, with the byte offset or the repeated name. */
function bytesError(p: ScanProblem) {
  switch (p.kind) {
    case 'utf8':
      return requestError('body_invalid_utf8', 'body', { offset: p.offset });
    case 'surrogate':
      return requestError('body_unpaired_surrogate', 'body', { offset: p.offset });
    case 'depth':
      return requestError('body_too_deep', 'body', { max: p.max, offset: p.offset });
    case 'members':
      return requestError('body_too_many_members', 'body', { max: p.max, offset: p.offset });
    case 'duplicate_top':
      return requestError('member_repeated', p.key.slice(0, 64), {});
  }
}

/**
 * POST /v5/ad_accounts/{ad_account_id}/events. The request-level rows of C2 in order (413 is enforced while
 * reading the body, before this runs), then per-event rules through @org/events-validators (the same code
 * integrators run; large bodies in a worker thread), dedup (C6), test mode (C7) and durable storage (C11)
 * before the 200 of C3.
 */
export function createEventsHandler(ctx: ServerContext) {
  return async function createEvents(
    req: FastifyRequest,
    reply: FastifyReply,
    input: Checked<'events/create'>,
  ) {
    // The gate's header rows (413, 415, 401, 404, 403, faults, 429, the query's 400) ran before the body
    // was read (C40, C101); the test flag of C7 was decoded there, once.
    const { account, test } = input;

    const names = new AccountEventNames(await withStore(ctx, () => ctx.customTypes.get(account.id)));
    const now = ctx.clock.now();
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const validating = performance.now();
    const context: PrepareContext = {
      now: Math.floor(now / 1000),
      currency: account.currency,
      customEventNames: names.customNames(),
      // C125: the account hashes raw user data on arrival (`hash_user_data`).
      hashUserData: ctx.hashUserData.has(account.id),
    };
    const prepared: Prepared = await ctx.validation.prepare(raw, context, !test);
    ctx.metrics.validation.observe(
      { thread: ctx.validation.threadFor(raw.length, !test) },
      (performance.now() - validating) / 1000,
    );
    // C70: what the request log may keep of this body, cleaned where it was read (a batch that was
    // refused as a whole is cleaned when its entry is made, only if it is kept).
    input.kept = prepared.kind === 'ok' ? prepared.kept : null;
    // C125: raw user data hashed on arrival: from here the request's body is the one with the digests in
    // place, the body the store reads and the request log keeps; the bytes received are dropped.
    const body = prepared.kind === 'ok' && prepared.body ? prepared.body : raw;
    if (body !== raw) req.body = body;
    if (prepared.kind === 'json_error')
      throw requestError('json_malformed', 'body', { reason: prepared.reason }); // 400
    if (prepared.kind === 'bytes_error') throw bytesError(prepared.problem); // 400 (C35-C37)
    if (prepared.kind === 'invalid') {
      const { code, message, details } = prepared.error;
      reply.code(prepared.status);
      return details.length ? { code, message, details } : { code, message };
    }
    const { answer } = prepared;
    const mode = test ? 'test' : 'live';
    ctx.metrics.batchSize.observe(answer.received);

    const toStore: EventToStore[] = prepared.events.map((e) => {
      const resolved = names.resolve(e.eventName);
      // A literal of known shape, not a spread: one per event of a 1000-event batch.
      return {
        index: e.index,
        eventName: resolved?.name ?? e.eventName,
        eventId: e.eventId,
        eventTime: e.eventTime,
        usage: resolved?.usage ?? [],
        json: e.json,
      };
    });
    const batch: BatchWrite = {
      adAccountId: account.id,
      requestId: req.id,
      receivedAt: now,
      dedupSince: now - DEDUP_WINDOW_MS,
      events: toStore,
      source: body,
      failures: prepared.failures,
    };
    // C6: the store owns the duplicate verdict, earlier requests and this batch alike (C102); C7: a test
    // request gets the same verdict from a dry run that stores nothing and changes no dedup state.
    const started = performance.now();
    const { duplicates } = await withStore(ctx, () =>
      test ? ctx.store.dryRunBatch(batch) : ctx.store.commitBatch(batch),
    );
    if (!test) ctx.metrics.commit.observe((performance.now() - started) / 1000);

    // The validators already warned the duplicates within the batch in their own words (C6, `data[i] of
    // this batch`); the store's verdict adds the warning to the others. Only then is the answer made again
    // from its JSON; otherwise it goes out as the validating thread wrote it.
    const warned = prepared.warnedDuplicates.length ? new Set(prepared.warnedDuplicates) : null;
    let json = answer.json;
    let notable = answer.notable;
    let response: BatchResponse | undefined;
    let problems: Map<number, EventProblems> | undefined;
    for (const [i, earlier] of duplicates) {
      if (warned?.has(i)) continue;
      response ??= JSON.parse(json) as BatchResponse;
      problems ??= new Map(prepared.problems);
      const p = problems.get(i) ?? { errors: [], warnings: [] };
      problems.set(i, p);
      const result = response.events[i];
      if (result)
        appendWarning(result, p, {
          path: 'event_id',
          code: 'duplicate_event',
          message: duplicateMessage(earlier),
        });
    }
    if (response) {
      json = JSON.stringify(response);
      notable = notableResults(response.events);
    }

    ctx.metrics.events.inc({ outcome: 'processed' satisfies EventStatus, mode }, answer.processed);
    ctx.metrics.events.inc(
      { outcome: 'failed' satisfies EventStatus, mode },
      answer.received - answer.processed,
    );
    if (duplicates.size) ctx.metrics.events.inc({ outcome: 'duplicate', mode }, duplicates.size);
    input.outcome = logOutcome(prepared, notable, toStore, duplicates, now, test);
    reply.type(`${JSON_CONTENT_TYPE}; charset=utf-8`);
    return json;
  };
}

/**
 * What the request log keeps of a 200 beyond the answer (C60): each event's problem paths (a duplicate's
 * `event_id` included) and the earlier sighting of each duplicate; failure codes for the timeline (C63).
 */
function logOutcome(
  prepared: Extract<Prepared, { kind: 'ok' }>,
  notable: [number, EventResult][],
  toStore: readonly EventToStore[],
  duplicates: ReadonlyMap<number, Earlier>,
  now: number,
  test: boolean,
): EventsOutcome {
  const fields = new Map(prepared.fields);
  // Built only for a batch with duplicates: most have none.
  let byIndex: Map<number, EventToStore> | undefined;
  const logged = new Map<number, LoggedDuplicate>();
  const add = (i: number, source: 'api' | 'tag', seenAt: number) => {
    byIndex ??= new Map(toStore.map((e) => [e.index, e]));
    const e = byIndex.get(i);
    if (!e) return;
    logged.set(i, { eventName: e.eventName, eventId: e.eventId, source, seenAt });
    const f = fields.get(i) ?? [];
    if (!f.includes('event_id')) fields.set(i, [...f, 'event_id']);
  };
  for (const [i, earlier] of duplicates) add(i, earlier.source, earlier.seenAt);
  const failedCodes: Record<string, number> = {};
  for (const f of prepared.failures) for (const c of f.codes) failedCodes[c] = (failedCodes[c] ?? 0) + 1;
  return {
    receivedAt: now,
    test,
    received: prepared.answer.received,
    processed: prepared.answer.processed,
    notable,
    fields,
    duplicates: logged,
    failedCodes,
    eventNames: prepared.names,
    hashed: new Map(prepared.hashed),
  };
}
