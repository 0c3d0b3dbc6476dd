// C91: Pinterest's conversion_deletion_requests routes. A request is processed at once: the account's stored
// events of the named users, their dedup sightings and the request-log bodies holding them are deleted in the
// request that creates it. The requests themselves (id, status, times, no targets) are kept in this process.
import { randomUUID } from 'node:crypto';
import { normalize, sha256Hex } from '@org/events-validators';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { received, requestError } from '../core/request-error.js';
import type { CheckedConversionDeletionRequestCreate } from '../generated/request-checks.gen.js';
import type { ServerContext } from '../http/context.js';
import { type Checked, withBodyRules } from '../http/gate.js';
import { withStore } from '../http/storage.js';
import type { DeletionTargets } from '../store/store.js';

interface DeletionRequest {
  request_id: string;
  status: 'PENDING' | 'SUBMITTED';
  created_time: string;
  processed_time?: string;
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
  /** The requests of each ad account, newest first. */
  const requests = new Map<string, DeletionRequest[]>();
  const find = (accountId: string, req: FastifyRequest) => {
    const id = (req.params as { request_id: string }).request_id;
    const found = requests.get(accountId)?.find((r) => r.request_id === id);
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
        const created = new Date(ctx.clock.now()).toISOString();
        // Entries waiting to be written would otherwise land after the deletion with the user's bodies.
        await ctx.requestLog.flushed();
        await withStore(ctx, () => ctx.store.deleteConversions(account.id, targets));
        const r: DeletionRequest = {
          request_id: randomUUID(),
          status: 'SUBMITTED',
          created_time: created,
          processed_time: new Date(ctx.clock.now()).toISOString(),
        };
        requests.set(account.id, [r, ...(requests.get(account.id) ?? [])]);
        reply.code(201);
        return r;
      },
    ),

    'conversion_deletion_requests/list': async (
      _req: FastifyRequest,
      _reply: FastifyReply,
      { account }: Checked<'conversion_deletion_requests/list'>,
    ) => {
      return { items: requests.get(account.id) ?? [], bookmark: null };
    },

    'conversion_deletion_requests/get': async (
      req: FastifyRequest,
      _reply: FastifyReply,
      { account }: Checked<'conversion_deletion_requests/get'>,
    ) => {
      return find(account.id, req);
    },

    'conversion_deletion_requests/delete': async (
      req: FastifyRequest,
      _reply: FastifyReply,
      { account }: Checked<'conversion_deletion_requests/delete'>,
    ) => {
      const found = find(account.id, req);
      // Never PENDING here: every request was processed when it was created (C91).
      throw requestError('deletion_request_submitted', 'path.request_id', {
        received: received(found.request_id),
      });
    },
  };
}
