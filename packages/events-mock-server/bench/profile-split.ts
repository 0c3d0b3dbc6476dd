// Where a target's time goes, by stage, from the V8 CPU profiles `pnpm bench --profile` writes into
// bench-profiles/<target>-<size>/ (one .cpuprofile per thread of the process, or of every process of a
// cluster) and the measured window the bench writes beside them (window.json).
//
// Each sample's self time goes to one stage, found by walking up the sample's stack from the leaf:
// - a frame that matches a stage rule (by function name and script URL) decides it;
// - Node's own frames (node:*, builtins) and third-party code that no rule names are passed through;
// - JSON.parse and JSON.stringify (when V8 shows them as frames) and prepareBatch (whose own time is mostly
//   its JSON.parse) are remembered and passed through: they count as `parse` / `answer` unless a frame above
//   them is one of the stages (JSON.stringify called by pino is logging, by the request log the request log);
// - the framework's frames (fastify, build-app.ts hooks) and the service's other code end the walk: the sample
//   counts as the remembered builtin's stage if there is one, else as theirs. Node's work done for the
//   service's code (a hash, a buffer copy) is the service's; for fastify, fastify's;
// - the whole subtree of appendWarning is the answer;
// - what reaches the root unclaimed is `framework and hooks` when it ran in Node's frames only (the HTTP
//   parser, streams, timers), `other` when it ran in third-party code; on a thread other than the main one it
//   is the thread's own work: the SQLite store thread's is `store`, a validation worker's `validators`.
// The bench's own servers (floor, fastify floor, ajv reference) have no frame for JSON.parse: V8 counts it in
// their handler, whose own time is therefore `parse` (what Node does under it, `framework and hooks`). Prism's stages are named by its packages (micri's
// JSON parse, prism-http's validator and compiled ajv, its mocker, its logger, its router and server).
// Only samples inside the measured window count (the warm-up and start-up are left out). V8 samples on the
// wall clock: a thread waiting in a call (an fsync) or descheduled keeps counting at its current frame.
//
// Standalone: `node --import tsx bench/profile-split.ts bench-profiles/test-mode-100 ...`; with
// PROFILE_SPLIT_EXPLAIN=<stage> it also lists the leaf frames that take most of that stage.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  /** 0-based. */
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
  /** Self samples per source line (1-based) of the function. */
  positionTicks?: { line: number; ticks: number }[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** What the bench writes beside the profiles of one target and size. */
export interface ProfileWindow {
  /** The measured run, on the clock of the profiles (µs, CLOCK_MONOTONIC). */
  startUs: number;
  endUs: number;
  /** Requests and events of the measured run. */
  requests: number;
  events: number;
}

export const STAGES = [
  'parse',
  'byte checks',
  'validators',
  'answer',
  'dedup',
  'store hand-off',
  'store',
  'request log',
  'metrics',
  'logging',
  'framework and hooks',
  'service, other',
  'GC',
  'other',
  'idle',
] as const;
export type Stage = (typeof STAGES)[number];

type Rule = { stage: Stage; fn?: RegExp; url?: RegExp };
const rule = (stage: Stage, url?: RegExp, fn?: RegExp): Rule => ({
  stage,
  ...(url ? { url } : {}),
  ...(fn ? { fn } : {}),
});

/** A match ends the walk: the sample is this stage's. Checked in this order at each frame. */
const SPECIFIC: Rule[] = [
  rule('GC', undefined, /^\(garbage collector\)$/),
  rule('idle', undefined, /^\(idle\)$/),
  rule('byte checks', /json-scan\.[jt]s$/),
  rule('dedup', /sqlite\/dedup\.[jt]s$/),
  rule('dedup', /\/store\/(sqlite|pg)[-/]/, /^findEarlier$/),
  rule('store hand-off', /threaded-store\.[jt]s$|pipeline\/pool\.[jt]s$/),
  rule('store hand-off', undefined, /^postMessage$/),
  rule('request log', /request-?log[^/]*\.[jt]s$|\/requestlog\//),
  rule(
    'validators',
    /events-validators\/(dist|src)\/|request-checks(\.gen)?\.[jt]s$|\/ajv\/|\/ajv-formats\//,
  ),
  // Code that ajv compiles has no script URL.
  rule('validators', /^$/, /^validate\d*$/),
  rule(
    'store',
    /better-sqlite3|\/store\/(sqlite[-/]|shared\/event-rows|pg\/)|\/node_modules\/(\.pnpm\/)?pg[@/-]/,
  ),
  rule('metrics', /prom-client|\/metrics\/metrics\.[jt]s$/),
  rule(
    'logging',
    /\/(pino|pino-std-serializers|sonic-boom|thread-stream|signale)[@/]|\/core\/logger\.[jt]s$|prism-http\/dist\/(utils\/logger|withLogger)\.js$|prism-core\/dist\/logger/,
  ),
  // The bench's servers and Prism.
  rule('answer', /\/bench\/[^/]+\.mjs$/, /^answerOf$/),
  rule('parse', /\/micri\//, /^parseJSON$/),
  rule('validators', /prism-http\/dist\/validator\//),
  rule('answer', /prism-http\/dist\/mocker\//),
];
/** Remembered while the walk goes on (see the header). */
const PASS_THROUGH: Rule[] = [
  rule('parse', /^$/, /^parse$/),
  rule('parse', undefined, /^prepareBatch$/),
  rule('answer', /^$/, /^stringify$/),
];
/** A match ends the walk, for the remembered stage if any, else for this one. */
const GENERIC: Rule[] = [
  rule(
    'framework and hooks',
    /\/(fastify|@fastify|find-my-way|avvio|light-my-request|fast-json-stringify|fast-querystring|micri|prism-http-server)[@/]|build-app\.[jt]s$|prism-http\/dist\/router\//,
  ),
  rule('service, other', /events-mock-server\/(dist|src)\//),
  rule('parse', /\/bench\/[^/]+\.mjs$/),
];
/** The whole subtree is this stage's, whatever it calls. */
const SUBTREE: Rule[] = [rule('answer', undefined, /^appendWarning$/)];

const matches = (r: Rule, f: CallFrame) =>
  (!r.fn || r.fn.test(f.functionName)) && (!r.url || r.url.test(f.url));
const first = (rules: Rule[], f: CallFrame) => rules.find((r) => matches(r, f))?.stage;
/** Node's own code and builtins: passed through. */
const isNode = (f: CallFrame) => f.url === '' || !f.url.startsWith('file:');

/** The stage of every node of one profile. */
function stagesOf(p: CpuProfile, threadDefault: Stage): Map<number, Stage> {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const main = threadDefault === 'other';
  const out = new Map<number, Stage>();
  for (const n of p.nodes) {
    let remembered: Stage | undefined;
    let stage: Stage | undefined;
    let subtree: Stage | undefined;
    let thirdParty = false;
    let node = false;
    for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) {
      const f = byId.get(id)!.callFrame;
      subtree ??= first(SUBTREE, f);
      if (stage !== undefined) continue;
      const s = first(SPECIFIC, f);
      if (s) {
        stage = s;
        continue;
      }
      remembered ??= first(PASS_THROUGH, f);
      const g = first(GENERIC, f);
      // Node's work (writing the answer, copying the body) under a bench server's handler is not parse.
      if (g) stage = remembered ?? (g === 'parse' && node ? 'framework and hooks' : g);
      else if (isNode(f)) node = true;
      else thirdParty = true;
    }
    // (program): native code with no JavaScript on the stack; on the store thread, SQLite's.
    if (n.callFrame.functionName === '(program)') stage = main ? 'other' : threadDefault;
    const unclaimed = main ? (thirdParty ? 'other' : 'framework and hooks') : threadDefault;
    out.set(n.id, subtree ?? stage ?? remembered ?? unclaimed);
  }
  return out;
}

/** The thread's own stage, from what its profile runs. */
function threadDefault(p: CpuProfile, main: boolean): Stage {
  if (main) return 'other';
  if (p.nodes.some((n) => /sqlite-thread\.[jt]s$/.test(n.callFrame.url))) return 'store';
  if (p.nodes.some((n) => /validation-worker\.[jt]s$/.test(n.callFrame.url))) return 'validators';
  return 'other';
}

const sources = new Map<string, string[] | null>();
/** The lines of a script, or null when it cannot be read. */
function sourceLines(url: string): string[] | null {
  if (!sources.has(url)) {
    try {
      sources.set(url, readFileSync(fileURLToPath(url), 'utf8').split('\n'));
    } catch {
      sources.set(url, null);
    }
  }
  return sources.get(url) ?? null;
}

/** Stages whose own time is split by the source line it was spent on (see below). */
const BY_LINE = new Set<Stage>(['service, other', 'parse', 'framework and hooks']);

/**
 * V8 shows no frame for JSON.parse and JSON.stringify when it runs them in C++: their time is the caller's,
 * on the line of the call. So a node of the service's own code (or of a bench server) whose stage is generic
 * gives the share of its time spent on lines that call JSON.parse to `parse`, and JSON.stringify to `answer`.
 */
function lineShares(n: ProfileNode, stage: Stage): [Stage, number][] {
  if (!BY_LINE.has(stage) || !n.positionTicks?.length || !n.callFrame.url.startsWith('file:')) return [];
  const lines = sourceLines(n.callFrame.url);
  if (!lines) return [];
  const total = n.positionTicks.reduce((t, p) => t + p.ticks, 0);
  const out: [Stage, number][] = [];
  for (const p of n.positionTicks) {
    const text = lines[p.line - 1] ?? '';
    const s: Stage | null = text.includes('JSON.parse(')
      ? 'parse'
      : text.includes('JSON.stringify(')
        ? 'answer'
        : null;
    if (s && s !== stage) out.push([s, p.ticks / total]);
  }
  return out;
}

export interface Split {
  /** µs per stage over the window, all threads summed. */
  us: Map<Stage, number>;
  /** µs per stage and leaf frame (`function file:line`), to see what a stage holds. */
  leaves: Map<Stage, Map<string, number>>;
  threads: number;
  window: ProfileWindow;
}

/** Sums the self time per stage of every profile in `dir` within the measured window. */
export function splitProfiles(dir: string): Split | null {
  let window: ProfileWindow;
  try {
    window = JSON.parse(readFileSync(join(dir, 'window.json'), 'utf8')) as ProfileWindow;
  } catch {
    return null;
  }
  const us = new Map<Stage, number>(STAGES.map((s) => [s, 0]));
  const leaves = new Map<Stage, Map<string, number>>(STAGES.map((s) => [s, new Map()]));
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  for (const f of files) {
    const p = JSON.parse(readFileSync(join(dir, f), 'utf8')) as CpuProfile;
    // CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile: thread 0 is a process's main thread.
    const main = basename(f).split('.')[4] === '0';
    const stages = stagesOf(p, threadDefault(p, main));
    const byId = new Map(p.nodes.map((n) => [n.id, n]));
    const shares = new Map(p.nodes.map((n) => [n.id, lineShares(n, stages.get(n.id) ?? 'other')]));
    // A sample's time is the interval to the next sample (as DevTools counts it).
    let t = p.startTime;
    for (let i = 0; i < p.samples.length; i++) {
      t += p.timeDeltas[i] ?? 0;
      const dt = p.timeDeltas[i + 1] ?? 0;
      if (t < window.startUs || t >= window.endUs || dt <= 0) continue;
      const id = p.samples[i]!;
      const s = stages.get(id) ?? 'other';
      let rest = dt;
      for (const [to, share] of shares.get(id) ?? []) {
        us.set(to, (us.get(to) ?? 0) + dt * share);
        rest -= dt * share;
      }
      us.set(s, (us.get(s) ?? 0) + rest);
      const f = byId.get(id)?.callFrame;
      const leaf = f
        ? `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\//, '')}:${f.lineNumber + 1}`
        : '?';
      const m = leaves.get(s)!;
      m.set(leaf, (m.get(leaf) ?? 0) + dt);
    }
  }
  return { us, leaves, threads: files.length, window };
}

const fmt = (n: number, d: number) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

/** The split as a Markdown table: ms per request, µs per event and share of the busy time (idle apart). */
export function formatSplit(title: string, split: Split): string {
  const { us, window } = split;
  const busy = STAGES.filter((s) => s !== 'idle').reduce((n, s) => n + (us.get(s) ?? 0), 0);
  const req = Math.max(1, window.requests);
  const ev = Math.max(1, window.events);
  const lines = [
    `${title}: ${fmt(window.requests, 0)} requests, ${fmt(window.events, 0)} events in ${fmt((window.endUs - window.startUs) / 1e6, 1)} s, ${split.threads} thread profile(s)`,
    '',
    '| stage | ms/request | µs/event | share of busy |',
    '|---|---:|---:|---:|',
  ];
  const rows = STAGES.filter((s) => s !== 'idle' && (us.get(s) ?? 0) > 0).sort(
    (a, b) => (us.get(b) ?? 0) - (us.get(a) ?? 0),
  );
  for (const s of rows) {
    const v = us.get(s) ?? 0;
    lines.push(`| ${s} | ${fmt(v / req / 1000, 3)} | ${fmt(v / ev, 2)} | ${fmt((100 * v) / busy, 1)}% |`);
  }
  lines.push(`| **busy, all threads** | ${fmt(busy / req / 1000, 3)} | ${fmt(busy / ev, 2)} | 100% |`);
  const idle = us.get('idle') ?? 0;
  lines.push(`| idle (all threads) | ${fmt(idle / req / 1000, 3)} | ${fmt(idle / ev, 2)} | – |`);
  return lines.join('\n');
}

/** The leaf frames that take most of a stage's time (PROFILE_SPLIT_EXPLAIN=<stage>). */
export function explainStage(split: Split, stage: Stage, top = 12): string {
  const total = split.us.get(stage) ?? 0;
  const rows = [...(split.leaves.get(stage) ?? [])].sort((a, b) => b[1] - a[1]).slice(0, top);
  return rows
    .map(([leaf, v]) => `  ${fmt((100 * v) / Math.max(1, total), 1).padStart(5)}% ${leaf}`)
    .join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const dir of process.argv.slice(2)) {
    const split = splitProfiles(dir);
    if (!split) {
      process.stdout.write(`${dir}: no window.json (run pnpm bench --profile)\n`);
      continue;
    }
    process.stdout.write(`${formatSplit(basename(dir), split)}\n\n`);
    const explain = process.env.PROFILE_SPLIT_EXPLAIN as Stage | undefined;
    if (explain) process.stdout.write(`${explain}, by leaf frame:\n${explainStage(split, explain)}\n\n`);
  }
}
