// C91: Pinterest's conversion_deletion_requests routes. A request is processed at once: the account's stored
// events of the named users, their dedup sightings and the request-log bodies holding them are deleted in the
// request that creates it. C121: the requests themselves (id, status, times, no targets) are kept in the
// store, written in the deletion's transaction, and answered in the shapes of Pinterest's SDKs.
import { normalize, sha256Hex } from '@org/events-validators';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { received, requestError } from '../core/request-error.js';
import type { CheckedConversionDeletionRequestCreate } from '../generated/request-checks.gen.js';
import type { ServerContext } from '../http/context.js';
import { type Checked, withBodyRules } from '../http/gate.js';
import { withStore } from '../http/storage.js';
import { isDeletionRequestId } from '../store/conversion-deletion.js';
import type { DeletionRequestRow, DeletionTargets } from '../store/store.js';

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
 * The digests a user_emails entry stands for: a SHA-256 hex digest as sent (lower-cased), or a plain address
 * normalized as C5 says and hashed here. The plain address goes no further than this function (C70).
 */
async function emailDigest(entry: string): Promise<string> {
  if (DIGEST.test(entry)) return entry.toLowerCase();
  return sha256Hex(normalize('em', entry) ?? entry);
}

/** The targets of a create body the gate checked (its shape); at least one entry in all. */
async function targetsOf(
  b: CheckedConversionDeletionRequestCreate,
  problems: Checked<'conversion_deletion_requests/create'>['problems'],
): Promise<DeletionTargets> {
  const t = b.deletion_targets;
  const emails = (t.user_emails ?? []).filter((e): e is string => e !== undefined);
  const epiks = (t.epiks ?? []).filter((e): e is string => e !== undefined);
  if (emails.length + epiks.length === 0) problems.add('deletion_targets_empty', 'deletion_targets', {});
  problems.throwIfAny();
  return { emailHashes: await Promise.all(emails.map(emailDigest)), clickIds: epiks };
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
      // Never PENDING here: every request was processed when it was created (C91).
      throw requestError('deletion_request_submitted', 'path.request_id', {
        received: received(found.requestId),
      });
    },
  };
}
