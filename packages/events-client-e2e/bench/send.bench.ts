// pnpm bench: sends an NDJSON file of N conversion events (default 1,000,000; `--events N` for a quick run)
// with the built `events send` CLI to the local mock server (SQLite file, in a child process), and prints
// events/s end to end, the CLI's CPU time per event and its peak RSS. The baseline, measured in the same
// run against a fresh server: a bare sender that joins the file's lines 1000 at a time into bodies, without
// parsing, checking or mapping results, with the same concurrency. The CLI's target: peak RSS under 150 MB
// whatever the file size (issue 12 item 4).
import { execFileSync, fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};
const EVENTS = arg('--events', 1_000_000);
const CONCURRENCY = arg('--concurrency', 4);
const BATCH = 1000;
const pkg = fileURLToPath(new URL('../', import.meta.url));
/** The client package, whose built CLI is measured (this private package holds the bench, issue 36). */
const client = fileURLToPath(new URL('../../events-client/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'events-client-bench-'));

interface Server {
  url: string;
  creds: { adAccountId: string; conversionToken: string };
  stop(): Promise<void>;
}

async function server(name: string): Promise<Server> {
  const child = fork(join(pkg, 'bench/server-child.ts'), [], {
    execArgv: ['--conditions=@org/source', '--import', 'tsx'],
    env: { ...process.env, BENCH_DB: join(dir, `${name}.db`) },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const [m] = (await once(child, 'message')) as [{ url: string; creds: Server['creds'] }];
  return {
    ...m,
    stop: async () => {
      child.send('stop');
      await once(child, 'exit');
    },
  };
}

async function writeFile(path: string, n: number): Promise<void> {
  const out = createWriteStream(path);
  const now = Math.floor(Date.now() / 1000);
  for (let i = 0; i < n; i++) {
    const line = `${JSON.stringify({
      event_name: 'checkout',
      action_source: 'web',
      event_time: now,
      event_id: `bench-${i}`,
      event_source_url: 'https://shop.example.com/checkout/thank-you',
      user_data: {
        em: ['6a6c26195c3682faa816966af789717c3bfa834eee6c599d667d2b3429c27cfd'],
        client_ip_address: '203.0.113.24',
        client_user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36',
      },
      custom_data: { currency: 'USD', value: '42.00', order_id: `order-${i}` },
    })}\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** The floor: raw lines joined into bodies, posted with the same concurrency; no parsing, no results. */
async function baseline(file: string, s: Server): Promise<number> {
  const started = performance.now();
  const url = `${s.url}/v5/ad_accounts/${s.creds.adAccountId}/events`;
  const inFlight = new Set<Promise<void>>();
  const post = (lines: string[]) => {
    const p = fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.creds.conversionToken}`, 'content-type': 'application/json' },
      body: `{"data":[${lines.join(',')}]}`,
    }).then(async (r) => {
      await r.text();
      if (r.status !== 200) throw new Error(`baseline: ${r.status}`);
    });
    const t = p.finally(() => inFlight.delete(t));
    inFlight.add(t);
  };
  let lines: string[] = [];
  for await (const line of createInterface({ input: createReadStream(file) })) {
    lines.push(line);
    if (lines.length === BATCH) {
      post(lines);
      lines = [];
      if (inFlight.size >= CONCURRENCY) await Promise.race(inFlight);
    }
  }
  if (lines.length) post(lines);
  await Promise.all(inFlight);
  return (performance.now() - started) / 1000;
}

interface CliRun {
  seconds: number;
  report: { processed: number; exitCode: number; batches: number; retried: number };
  userUs: number;
  systemUs: number;
  maxRssKb: number;
}

async function cli(file: string, s: Server): Promise<CliRun> {
  const bin = join(client, 'dist/cli/bin.js');
  if (!existsSync(bin))
    execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: client, stdio: 'inherit' });
  // The node flags of the bin's shebang (`#!/usr/bin/env -S node FLAGS`), which npm's and pnpm's bin shims
  // pass on: the CLI is measured as a user runs it.
  const shebangFlags = (
    /^#!\S*env -S node(.*)$/m.exec(readFileSync(bin, 'utf8').split('\n')[0] ?? '')?.[1] ?? ''
  )
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      ...shebangFlags,
      '--import',
      join(pkg, 'bench/rusage.mjs'),
      bin,
      'send',
      file,
      '--json',
      '--concurrency',
      String(CONCURRENCY),
    ],
    {
      env: {
        ...process.env,
        EVENTS_TOKEN: s.creds.conversionToken,
        EVENTS_AD_ACCOUNT_ID: s.creds.adAccountId,
        EVENTS_BASE_URL: s.url,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    err += d;
  });
  await once(child, 'close');
  const seconds = (performance.now() - started) / 1000;
  const usage = JSON.parse(/RUSAGE (.*)/.exec(err)?.[1] ?? 'null');
  if (!usage) throw new Error(`cli: no usage line\n${err}`);
  return { seconds, report: JSON.parse(out), ...usage };
}

try {
  const file = join(dir, 'events.ndjson');
  await writeFile(file, EVENTS);
  const mb = statSync(file).size / 2 ** 20;
  console.log(
    `events-client bench: ${EVENTS} events (${mb.toFixed(1)} MiB NDJSON), concurrency ${CONCURRENCY}, batches of ${BATCH}`,
  );

  const s1 = await server('baseline');
  const base = await baseline(file, s1);
  await s1.stop();
  const s2 = await server('cli');
  const c = await cli(file, s2);
  await s2.stop();

  const rows = [
    ['bare sender (baseline)', Math.round(EVENTS / base), base.toFixed(1), '-', '-'],
    [
      'events send (CLI)',
      Math.round(EVENTS / c.seconds),
      c.seconds.toFixed(1),
      (((c.userUs + c.systemUs) / EVENTS) | 0).toString(),
      (c.maxRssKb / 1024).toFixed(0),
    ],
  ];
  console.table(
    rows.map(([what, eps, s, cpu, rss]) => ({
      what,
      'events/s': eps,
      seconds: s,
      'client CPU µs/event': cpu,
      'peak RSS MB': rss,
    })),
  );
  console.log(
    `CLI/baseline events/s: ${(EVENTS / c.seconds / (EVENTS / base)).toFixed(2)}; processed ${c.report.processed}/${EVENTS}, exit ${c.report.exitCode}, ${c.report.batches} batches, ${c.report.retried} retries; peak RSS target < 150 MB: ${c.maxRssKb / 1024 < 150 ? 'met' : 'MISSED'}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
