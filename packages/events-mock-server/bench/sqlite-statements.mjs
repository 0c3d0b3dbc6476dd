// Preloaded (`--import`) into a bench child on SQLite (the service or the SQLite reference, issue 37): counts
// the statements better-sqlite3 runs, on every thread of the process (Node runs `--import` in each worker, so
// the service's store thread counts too). Each `run`, `get`, `all` or `iterate` of a prepared statement is
// one (the BEGIN and COMMIT of `db.transaction` are statements of their own), an `exec` is one whatever it
// holds; transactions are the BEGINs, writes the statements that are not readers. One increment per call.
// The bench asks over IPC (`sqlite-statements`); the main thread gathers the counts of every thread that said
// hello over a BroadcastChannel and answers `{ sqliteStatements: { statements, transactions, writes } }`.
import { createRequire } from 'node:module';
import { BroadcastChannel, isMainThread, threadId } from 'node:worker_threads';

/** @typedef {{ statements: number, transactions: number, writes: number }} Counts */

const Database = createRequire(import.meta.url)('better-sqlite3');
/** @type {Counts} */
const counts = { statements: 0, transactions: 0, writes: 0 };
const probe = new Database(':memory:');
const statementProto = Object.getPrototypeOf(probe.prepare('SELECT 1'));
probe.close();
for (const method of ['run', 'get', 'all', 'iterate']) {
  const original = statementProto[method];
  statementProto[method] = function (/** @type {unknown[]} */ ...args) {
    counts.statements++;
    if (!this.reader) {
      counts.writes++;
      if (this.source.startsWith('BEGIN')) counts.transactions++;
    }
    return original.apply(this, args);
  };
}
const exec = Database.prototype.exec;
Database.prototype.exec = function (/** @type {string} */ sql) {
  counts.statements++;
  counts.writes++;
  return exec.call(this, sql);
};

const NAME = 'ems-bench-sqlite-statements';
const channel = new BroadcastChannel(NAME);
/** Threads that said hello (seen by the main thread): each must answer an ask. */
const threads = new Set([threadId]);
channel.onmessage = (/** @type {any} */ m) => {
  if (m.data === 'ask') channel.postMessage({ thread: threadId, ...counts });
  else if (typeof m.data?.hello === 'number') threads.add(m.data.hello);
};
channel.unref();
if (!isMainThread) channel.postMessage({ hello: threadId });

if (isMainThread)
  process.on('message', (m) => {
    if (m !== 'sqlite-statements') return;
    // Every channel but the asker's answers, this thread's own included. A thread busy in a long commit
    // answers when it is done; one that never does (it ended) leaves the counts null after 10 s.
    const asker = new BroadcastChannel(NAME);
    /** @type {Map<number, Counts>} */
    const replies = new Map();
    const done = (/** @type {boolean} */ complete) => {
      clearTimeout(timer);
      asker.close();
      /** @type {Counts} */
      const total = { statements: 0, transactions: 0, writes: 0 };
      for (const r of replies.values()) {
        total.statements += r.statements;
        total.transactions += r.transactions;
        total.writes += r.writes;
      }
      process.send?.({ sqliteStatements: complete ? total : null });
    };
    const timer = setTimeout(() => done(false), 10_000);
    asker.onmessage = (/** @type {any} */ r) => {
      if (typeof r.data?.thread !== 'number') return;
      replies.set(r.data.thread, r.data);
      if ([...threads].every((t) => replies.has(t))) done(true);
    };
    asker.postMessage('ask');
  });
