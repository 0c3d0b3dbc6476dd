// C91: Pinterest's conversion_deletion_requests routes. A request is processed at once: the account's stored
// events of the named users, their dedup sightings and the request-log bodies holding them are deleted in the
// request that creates it. C121: the requests themselves (id, status, times, no targets) are kept in the
// store, written in the deletion's transaction, and answered in the shapes of Pinterest's SDKs.
import { DELETION_KEYS } from '@org/events-types';
import { normalize, sha256Hex } from '@org/events-validators';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { received, requestError } from '../core/request-error.js';
import type { CheckedConversionDeletionRequestCreate } from '../generated/request-checks.gen.js';
import type { ServerContext } from '../http/context.js';
import { type Checked, withBodyRules } from '../http/gate.js';
import { withStore } from '../http/storage.js';
import { isDeletionRequestId } from '../store/common/conversion-deletion.js';
import type { DeletionRequestRow, DeletionTargets } from '../store/interface/deletions.js';

/** Pinterest's `ConversionDeletionRequest`: a numeric id and OpenAPI `date`s (C121). */
interface DeletionRequestOut {
  request_id: string;
  status: DeletionRequestRow['status'];
  created_time: string;
  processed_time: string | null;
}

/** The UTC day of a store time (ms), `yyyy-MM-dd`. */
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function out(r: DeletionRequestRow): DeletionRequestOut {
  return {
    request_id: r.requestId,
    status: r.status,
    created_time: day(r.createdAt),
    processed_time: r.processedAt === null ? null : day(r.processedAt),
  };
}

const DIGEST = /^[0-9a-fA-F]{64}$/;

/**
 * The digest an entry for a hashed field (`user_emails` for `em`) stands for: a SHA-256 hex digest as sent
 * (lower-cased), or a plain value normalized as that field is (C5) and hashed here. The plain value goes no
 * further than this function (C70).
 */
async function digestOf(field: string, entry: string): Promise<string> {
  if (DIGEST.test(entry)) return entry.toLowerCase();
  return sha256Hex(normalize(field, entry) ?? entry);
}

/**
 * The targets of a create body the gate checked (its shape), by the user_data field each list is matched
 * against (the spec's DELETION_KEYS, C124); at least one entry in all.
 */
async function targetsOf(
  b: CheckedConversionDeletionRequestCreate,
  problems: Checked<'conversion_deletion_requests/create'>['problems'],
): Promise<DeletionTargets> {
  const lists = DELETION_KEYS.map((k) => ({
    ...k,
    entries: (b.deletion_targets[k.target] ?? []).filter((e): e is string => e !== undefined),
  }));
  if (lists.every((l) => l.entries.length === 0))
    problems.add('deletion_targets_empty', 'deletion_targets', {});
  problems.throwIfAny();
  const targets: { -readonly [F in keyof DeletionTargets]: string[] } = {};
  for (const { field, hashed, entries } of lists)
    targets[field] = hashed ? await Promise.all(entries.map((e) => digestOf(field, e))) : entries;
  return targets;
}

export function conversionDeletionRequestHandlers(ctx: ServerContext) {
  /** The request of the path's id, or 404: an id that is no id of the store names none (C121). */
  const find = async (accountId: string, req: FastifyRequest) => {
    const id = (req.params as { request_id: string }).request_id;
    const found = isDeletionRequestId(id)
      ? await withStore(ctx, () => ctx.store.getDeletionRequest(accountId, id))
      : null;
    if (!found) throw requestError('deletion_request_unknown', 'path.request_id', { received: received(id) });
    return found;
  };

  return {
    'conversion_deletion_requests/create': withBodyRules(
      async (
        _req: FastifyRequest,
        reply: FastifyReply,
        { account, body, problems }: Checked<'conversion_deletion_requests/create'>,
      ) => {
        const targets = await targetsOf(body, problems);
        // Entries waiting to be written would otherwise land after the deletion with the user's bodies.
        await ctx.requestLog.flushed();
        const r = await withStore(ctx, () =>
          ctx.store.createDeletionRequest(account.id, targets, ctx.clock.now()),
        );
        reply.code(201);
        return out(r);
      },
    ),

    'conversion_deletion_requests/list': async (
      _req: FastifyRequest,
      _reply: FastifyReply,
      { account }: Checked<'conversion_deletion_requests/list'>,
    ) => {
      const rows = await withStore(ctx, () => ctx.store.listDeletionRequests(account.id));
      return { items: rows.map(out), bookmark: null };
    },

    'conversion_deletion_requests/get': async (
      req: FastifyRequest,
      _reply: FastifyReply,
      { account }: Checked<'conversion_deletion_requests/get'>,
    ) => {
      return out(await find(account.id, req));
    },

    'conversion_deletion_requests/delete': async (
      req: FastifyRequest,
      _reply: FastifyReply,
      { account }: Checked<'conversion_deletion_requests/delete'>,
    ) => {
      const found = await find(account.id, req);
      // Never cancelled: every request was processed when it was created (C91), and one passed on to an
      // upstream cannot be called back (C127).
      throw requestError('deletion_request_submitted', 'path.request_id', {
        received: received(found.requestId),
      });
    },
  };
}
