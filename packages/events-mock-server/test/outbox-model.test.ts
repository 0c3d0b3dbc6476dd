// C100, C112-C114: a model-based (stateful) test of the outbox of every store. fast-check runs random
// sequences of accepts, deletions, claims, settlements, clock steps, crashed deliverers and re-queues against
// a store and a plain model of every entry (state, attempts, retry time, lease); the store must agree with
// the model after every step, and at the end every surviving event of a routed account must have gone out.
// The owners behave as the deliverer does (src/delivery/deliverer.ts): a claim only when idle, then one
// settlement per account of the claim: the delivered batches, then a failure or a release, the rest released.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Outbox, OutboxEntryStatus, OutboxOutcome } from '../src/store/interface/outbox.js';
import type { Store } from '../src/store/interface/store.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { ThreadedSqliteStore } from '../src/store/threaded-store.js';
import { openTestPgStore } from './support/pg-store.js';
import { postgresReachable } from './support/postgres.js';

const SINK = 'up';
const LEASE_MS = 100;
// Account '3' is covered by no sink: its events are stored (and deletable) but never enter the outbox.
const ACCOUNTS = ['1', '2', '3'] as const;
const ROUTED: readonly string[] = ['1', '2'];
const OWNERS = ['A', 'B'] as const;
type Owner = (typeof OWNERS)[number];
const other = (o: Owner): Owner => (o === 'A' ? 'B' : 'A');
const sha = (email: string) => createHash('sha256').update(email).digest('hex');
/** Two users, told apart by the e-mail hash a deletion matches (C91). */
const USERS = [sha('u0@example.com'), sha('u1@example.com')];

/** One accepted event and, when its account is routed, its outbox entry. */
interface Ev {
  eventId: string;
  account: string;
  user: number;
  request: string;
  routed: boolean;
  /** Acceptance order = entry id order: the order of claims within an account and of heads across them. */
  seq: number;
  createdAt: number;
  deleted: boolean;
  state: 'pending' | 'delivered' | 'dead';
  attempts: number;
  nextAt: number;
  /** As the store keeps them: an expired lease stays recorded until a settlement or a new claim. */
  leaseOwner: Owner | null;
  leaseUntil: number | null;
  lastError: string | null;
  deliveredAt: number | null;
  deliveredEver: boolean;
  /** The entry id the store answered at the first claim (it must never change). */
  storeId?: number;
}
/** What an owner holds from its last claim: per account, the batches as answered. */
type Holding = { account: string; batches: { id: number; eventId: string }[][] };
interface Model {
  now: number;
  events: Ev[];
  byId: Map<string, Ev>;
  requests: string[];
  held: Record<Owner, Holding[]>;
  /** Every event id a claim ever answered. */
  claimed: Set<string>;
  /** PostgreSQL leases an account, not each entry (its cursor): the owner of each account's latest claim. */
  accountLease: boolean;
  accountOwner: Map<string, Owner>;
}
type Real = { store: Store & Outbox };
type Cmd = fc.AsyncCommand<Model, Real>;

// Unique across runs (the store is reset, not reopened, between runs).
let serial = 0;
const live = (e: Ev) => e.routed && !e.deleted;
const leasedLive = (e: Ev, now: number) => e.leaseUntil !== null && e.leaseUntil > now;

/** After every command: outboxStats, and every entry's state under its own request (never another's). */
async function checkInvariants(m: Model, store: Store & Outbox): Promise<void> {
  const pending = m.events.filter((e) => live(e) && e.state === 'pending');
  const dead = m.events.filter((e) => live(e) && e.state === 'dead').length;
  const oldestPendingAt = pending.length ? Math.min(...pending.map((e) => e.createdAt)) : null;
  expect(await store.outboxStats(), 'outboxStats').toEqual(
    pending.length || dead ? [{ sink: SINK, pending: pending.length, dead, oldestPendingAt }] : [],
  );
  for (const r of m.requests) {
    const want = m.events
      .filter((e) => e.request === r && live(e))
      .map(
        (e): OutboxEntryStatus => ({
          sink: SINK,
          eventName: 'lead',
          eventId: e.eventId,
          state: e.state,
          attempts: e.attempts,
          lastError: e.lastError,
          nextAttemptAt: e.state === 'pending' ? e.nextAt : null,
          deliveredAt: e.state === 'delivered' ? e.deliveredAt : null,
          result: null,
        }),
      );
    expect(await store.outboxOfRequest(r), `outboxOfRequest(${r})`).toEqual(want);
  }
}

/** A command: its step, then the invariants; `label` is read when fast-check prints a counterexample. */
const command = (
  label: () => string,
  step: (m: Model, store: Store & Outbox) => Promise<unknown>,
  check: (m: Readonly<Model>) => boolean = () => true,
): Cmd => ({
  check,
  run: async (m, { store }) => {
    await step(m, store);
    await checkInvariants(m, store);
  },
  toString: label,
});
const FRESH = { deleted: false, state: 'pending', attempts: 0, leaseOwner: null, leaseUntil: null } as const;
const NEVER_SETTLED = { lastError: null, deliveredAt: null, deliveredEver: false };

const accept = (account: string, users: number[]) =>
  command(
    () => `accept(${account}, users ${users.join('')})`,
    async (m, store) => {
      const request = `r${++serial}`;
      const routed = ROUTED.includes(account);
      const base = { account, request, routed, createdAt: m.now, nextAt: m.now, ...FRESH, ...NEVER_SETTLED };
      const evs = users.map(
        (user, i): Ev => ({ ...base, user, eventId: `e${serial}-${i}`, seq: m.events.length + i }),
      );
      const events = evs.map((e, index) => {
        const json = JSON.stringify({ event_id: e.eventId, user_data: { em: [USERS[e.user]] } });
        return { index, eventName: 'lead', eventId: e.eventId, eventTime: 1, usage: [], json };
      });
      const batch = { adAccountId: account, requestId: request, receivedAt: m.now, dedupSince: 0 };
      await store.commitBatch({ ...batch, events, failures: [] });
      m.requests.push(request);
      m.events.push(...evs);
      for (const e of evs) m.byId.set(e.eventId, e);
    },
  );

const deleteUser = (account: string, user: number) =>
  command(
    () => `delete(${account}, user ${user})`,
    async (m, store) => {
      const gone = m.events.filter((e) => e.account === account && e.user === user && !e.deleted);
      const targets = { em: [USERS[user] as string], click_id: [] };
      // Every event of the user on the account, and every entry of them in any state (leased, settled, dead).
      expect(await store.deleteConversions(account, targets)).toEqual({
        events: gone.length,
        outboxEntries: gone.filter((e) => e.routed).length,
        requestBodies: 0,
      });
      for (const e of gone) e.deleted = true;
    },
  );

/**
 * By `preferred`, or by the other owner when that one still holds its last claim (a deliverer claims when
 * idle). Labels name the preferred owner ('A?'): fast-check reuses a command across shrinking runs, so the
 * owner it resolved to in one run says nothing of another; the sequence replays the same either way.
 */
function claim(preferred: Owner, batchSize: number, batchesPerAccount: number, maxAccounts: number): Cmd {
  const step = async (m: Model, store: Store & Outbox) => {
    const owner = m.held[preferred].length === 0 ? preferred : other(preferred);
    const now = m.now;
    // The model's answer: accounts whose head (oldest pending entry) is due, oldest head first; of each, the
    // oldest pending entries. An account with an entry leased live is held whole, even when that entry is
    // not its head (a dead entry re-queued ahead of it): taking the account then would either lease the
    // entry to a second owner or send later entries around it, and the contract forbids both (C100).
    const want = ROUTED.map((a) =>
      m.events.filter((e) => live(e) && e.account === a && e.state === 'pending'),
    )
      .filter((q) => q[0] !== undefined && q[0].nextAt <= now && !q.some((e) => leasedLive(e, now)))
      .sort((x, y) => (x[0] as Ev).seq - (y[0] as Ev).seq)
      .slice(0, maxAccounts)
      .map((q) => q.slice(0, batchSize * batchesPerAccount));
    const limits = { batchSize, batchesPerAccount, maxAccounts };
    const got = await store.claimOutbox({ sink: SINK, owner, now, leaseMs: LEASE_MS, ...limits });
    const ids = new Set<number>();
    for (const b of got) {
      expect([b.sink, b.entries.length > 0, b.entries.length <= batchSize]).toEqual([SINK, true, true]);
      for (const e of b.entries) {
        const ev = m.byId.get(e.eventId);
        expect(ev, `claimed an unknown event ${e.eventId}`).toBeDefined();
        if (!ev) continue;
        expect(JSON.parse(e.event).event_id, 'the event as stored').toBe(e.eventId);
        expect(b.adAccountId, `${e.eventId} claimed under another account`).toBe(ev.account);
        expect(ev.routed, `${e.eventId} of an unrouted account claimed`).toBe(true);
        expect(ev.deleted, `deleted ${e.eventId} claimed`).toBe(false);
        expect(ev.state, `${e.eventId} claimed while not pending`).toBe('pending');
        expect(leasedLive(ev, now), `${e.eventId} claimed while leased live to ${ev.leaseOwner}`).toBe(false);
        expect(e.attempts).toBe(ev.attempts);
        expect(e.id, `${e.eventId} changed its entry id`).toBe(ev.storeId ?? e.id);
        expect(ids.has(e.id), `entry ${e.id} answered twice`).toBe(false);
        ids.add(e.id);
      }
    }
    // Then the exact answer: the accounts in head order, each from its head on, oldest first, in batches.
    const chunks = (q: Ev[]) =>
      Array.from({ length: Math.ceil(q.length / batchSize) }, (_, i) =>
        q.slice(i * batchSize, (i + 1) * batchSize).map((e) => e.eventId),
      );
    expect(got.map((b) => [b.adAccountId, b.entries.map((e) => e.eventId)])).toEqual(
      want.flatMap((q) => chunks(q).map((c) => [(q[0] as Ev).account, c])),
    );
    for (const b of got) {
      m.accountOwner.set(b.adAccountId, owner);
      const held = m.held[owner].find((x) => x.account === b.adAccountId);
      const h = held ?? { account: b.adAccountId, batches: [] };
      if (!held) m.held[owner].push(h);
      h.batches.push(b.entries.map((e) => ({ id: e.id, eventId: e.eventId })));
      for (const e of b.entries) {
        const lease = { storeId: e.id, leaseOwner: owner, leaseUntil: now + LEASE_MS };
        Object.assign(m.byId.get(e.eventId) as Ev, lease);
        m.claimed.add(e.eventId);
      }
    }
  };
  const label = () => `claim(${preferred}?, ${batchSize}x${batchesPerAccount}, ${maxAccounts})`;
  return command(label, step, (m) => OWNERS.some((o) => m.held[o].length === 0));
}

interface SettlePlan {
  owner: Owner;
  /** Batches of each account delivered before the first that is not. */
  delivered: number;
  /** What happens to that first batch (the rest are released, as the deliverer does). */
  stop: 'failed' | 'released';
  /** Fractions of a ms: the stores keep whole ms, rounded up (C113). */
  frac: number;
  retryIn: number;
  retryFrac: number;
  maxAttempts: number;
}

/** What `plan.owner` holds (or the other owner, when only that one holds something): one call per account. */
function settle(plan: SettlePlan): Cmd {
  const step = async (m: Model, store: Store & Outbox) => {
    const p = { ...plan, owner: m.held[plan.owner].length ? plan.owner : other(plan.owner) };
    const [now, retryAt, error] = [m.now + p.frac, m.now + p.retryIn + p.retryFrac, 'HTTP 503'];
    // Only entries still pending and leased to this owner change: an expired lease nobody took over is still
    // this owner's (its late result counts), one re-claimed by the other owner is left alone. Where the
    // account is what is leased, an entry is left alone as soon as the other owner re-claimed its account.
    const ours = (e: Ev) =>
      e.leaseOwner === p.owner && (!m.accountLease || m.accountOwner.get(e.account) === p.owner);
    const apply = (es: { eventId: string }[], f: (e: Ev) => void) => {
      for (const e of es.map(({ eventId }) => m.byId.get(eventId) as Ev))
        if (!e.deleted && e.state === 'pending' && ours(e))
          f(Object.assign(e, { leaseOwner: null, leaseUntil: null }));
    };
    for (const { account: adAccountId, batches } of m.held[p.owner]) {
      const k = Math.min(p.delivered, batches.length);
      const [sent, stopped] = [batches.slice(0, k).flat(), batches[k]];
      const failed = stopped && p.stop === 'failed' ? stopped : [];
      const rest = batches.slice(k + (failed.length ? 1 : 0)).flat();
      const ids = (es: { id: number }[]) => es.map((e) => e.id);
      const outcomes: OutboxOutcome[] = [];
      if (sent.length) outcomes.push({ kind: 'delivered', adAccountId, ids: ids(sent), now });
      const { maxAttempts } = p;
      if (failed.length)
        outcomes.push({ kind: 'failed', adAccountId, ids: ids(failed), now, error, retryAt, maxAttempts });
      if (rest.length) outcomes.push({ kind: 'released', adAccountId, ids: ids(rest) });
      await store.settleOutbox(p.owner, outcomes);
      apply(sent, (e) => {
        Object.assign(e, { state: 'delivered', deliveredAt: Math.ceil(now), lastError: null });
        [e.attempts, e.deliveredEver] = [e.attempts + 1, true];
      });
      apply(failed, (e) => {
        e.attempts += 1;
        e.state = e.attempts >= maxAttempts ? 'dead' : 'pending';
        [e.nextAt, e.lastError] = [Math.ceil(retryAt), error];
      });
      apply(rest, () => {});
    }
    m.held[p.owner] = [];
  };
  return command(
    () => `settle(${JSON.stringify({ ...plan, owner: `${plan.owner}?` })})`,
    step,
    (m) => OWNERS.some((o) => m.held[o].length > 0),
  );
}

const advance = (ms: number) =>
  command(
    () => `advance(${ms})`,
    async (m) => {
      m.now += ms;
    },
  );

/** A crashed deliverer: its holdings are forgotten unsettled; only the leases' expiry frees them. */
const kill = (owner: Owner) =>
  command(
    () => `kill(${owner})`,
    async (m) => {
      m.held[owner] = [];
    },
  );

const requeue = (otherSink: boolean) =>
  command(
    () => `requeue(${otherSink ? 'other sink' : 'all'})`,
    async (m, store) => {
      const dead = otherSink ? [] : m.events.filter((e) => live(e) && e.state === 'dead');
      expect(await store.requeueDeadOutbox(m.now, otherSink ? 'other' : undefined)).toBe(dead.length);
      // Back to pending, due now, attempts forgotten; the last error is kept for the inspector. On SQLite
      // (entry leases) a requeued entry carries the latest live lease of its account's entries, with no
      // owner, so the account is not claimed beside what is still out; PostgreSQL leases the account itself.
      const until = (account: string) => {
        const leases = m.events
          .filter((x) => live(x) && x.account === account && x.state === 'pending' && x.leaseOwner !== null)
          .map((x) => x.leaseUntil ?? 0)
          .filter((t) => t > m.now);
        return leases.length ? Math.max(...leases) : null;
      };
      const leases = new Map(dead.map((e) => [e.account, until(e.account)]));
      for (const e of dead)
        Object.assign(e, {
          state: 'pending',
          attempts: 0,
          nextAt: m.now,
          ...(m.accountLease ? {} : { leaseOwner: null, leaseUntil: leases.get(e.account) ?? null }),
        });
    },
  );

const owner = fc.constantFrom(...OWNERS);
const int = (min: number, max: number) => fc.integer({ min, max });
const users = fc.array(int(0, 1), { minLength: 1, maxLength: 4 });
const acceptArb = fc.tuple(fc.constantFrom(...ACCOUNTS), users).map(([a, u]) => accept(a, u));
const claimArb = fc.tuple(owner, int(1, 3), int(1, 2), int(1, 3)).map((c) => claim(...c));
const frac = fc.double({ min: 0, max: 0.999, noNaN: true });
const stop = fc.constantFrom('failed' as const, 'released' as const);
const settleArb = fc
  .record({
    owner,
    delivered: fc.nat(2),
    stop,
    frac,
    retryIn: int(0, 150),
    retryFrac: frac,
    maxAttempts: int(1, 3),
  })
  .map(settle);
const advanceArb = int(1, 200).map(advance);
const DELIVER_ALL = {
  owner: 'A',
  delivered: 99,
  stop: 'released',
  frac: 0,
  retryIn: 0,
  retryFrac: 0,
  maxAttempts: 1,
} as const;
// Repeated arbitraries weigh the draw: accepts, claims and settlements are what move entries along.
const commands = fc.commands(
  [
    ...[acceptArb, acceptArb, acceptArb, claimArb, claimArb, claimArb, settleArb, settleArb, settleArb],
    ...[advanceArb, advanceArb, owner.map(kill), fc.boolean().map(requeue), fc.boolean().map(requeue)],
    fc.tuple(fc.constantFrom(...ACCOUNTS), int(0, 1)).map(([a, u]) => deleteUser(a, u)),
  ],
  { maxCommands: 25, size: 'max' },
);

/**
 * Every deliverer crashes, the clock passes every lease and retry, then one deliverer claims and delivers
 * until nothing is left: each surviving, routed, not dead event must then have been delivered.
 */
async function quiesce(m: Model, real: Real): Promise<void> {
  for (const o of OWNERS) await kill(o).run(m, real);
  const latest = Math.max(m.now, ...m.events.flatMap((e) => [e.nextAt, e.leaseUntil ?? 0]));
  await advance(latest - m.now + 1).run(m, real);
  for (let round = 0; ; round++) {
    expect(round, 'the outbox never drains').toBeLessThan(200);
    await claim('A', 3, 2, 3).run(m, real);
    if (!m.held.A.length) break;
    await settle(DELIVER_ALL).run(m, real);
  }
  const undelivered = m.events.filter((e) => live(e) && e.state !== 'dead' && !e.deliveredEver);
  expect(undelivered.map((e) => e.eventId)).toEqual([]);
  // Claims are checked as they answer (nothing deleted then); unrouted events never enter a claim at all.
  expect([...m.claimed].filter((id) => !m.byId.get(id)?.routed)).toEqual([]);
}

type Impl = {
  name: string;
  runs: number;
  accountLease?: boolean;
  open(dir: string): Promise<Store & Outbox>;
};
const impls: Impl[] = [
  { name: 'SqliteStore', runs: 150, open: async () => new SqliteStore({ path: ':memory:' }) },
  {
    name: 'ThreadedSqliteStore',
    runs: 150,
    open: (dir) => ThreadedSqliteStore.open({ path: join(dir, 'events.db'), synchronous: 'NORMAL' }),
  },
];
if (await postgresReachable())
  impls.push({
    name: 'PgStore',
    runs: 30,
    accountLease: true,
    open: async () => (await openTestPgStore()).store,
  });

for (const impl of impls)
  describe(`outbox model: ${impl.name}`, () => {
    let dir: string;
    let store: Store & Outbox;
    // One store per implementation, reset between runs: a database per run would make PostgreSQL's runs
    // (and shrinking's) slow, and reset empties the outbox (outbox.test.ts).
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'ems-outbox-model-'));
      store = await impl.open(dir);
    });
    afterAll(async () => {
      await store?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test('random accepts, deletions, claims, settlements, crashes and re-queues agree with the model', async () => {
      const property = fc.asyncProperty(commands, async (cmds) => {
        await store.reset();
        await store.routeOutbox([{ sink: SINK, adAccounts: ROUTED }]);
        const model: Model = {
          now: 1_000,
          events: [],
          byId: new Map(),
          requests: [],
          held: { A: [], B: [] },
          claimed: new Set(),
          accountLease: impl.accountLease ?? false,
          accountOwner: new Map(),
        };
        await fc.asyncModelRun(() => ({ model, real: { store } }), cmds);
        await quiesce(model, { store });
      });
      await fc.assert(property, { numRuns: impl.runs });
    }, 120_000);
  });
