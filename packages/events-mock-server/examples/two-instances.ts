// The README's "Running more than one instance, try it" as one command (issue 23 point 4): two instances on one
// PostgreSQL and one Redis with the same demo config, generated once and written to a file both start with
// (each instance's own demo config would hold tokens of its own; the last to start would win the shared
// token table). `--try` then sends the same event to both at once (stored once, the other answer warns, C6)
// and 15 test requests spread over both in one second (10 admitted in sum, C7, C50), prints what happened
// and stops both; without it they run until Ctrl-C.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { RATE_LIMITS } from '@org/events-types';
import { demoConfig } from '../src/config/demo.js';
import { DEMO_REQUEST, JSON_CONTENT_TYPE } from '../src/generated/routes.gen.js';

const pkg = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    store: {
      type: 'string',
      default: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    },
    limits: { type: 'string', default: process.env.REDIS_URL || 'redis://127.0.0.1:6379' },
    prefix: { type: 'string', default: 'events:demo:' },
    ports: { type: 'string', default: '8081,8082' },
    try: { type: 'boolean', default: false },
  },
});

const dir = mkdtempSync(join(tmpdir(), 'events-two-instances-'));
const demo = demoConfig();
const configPath = join(dir, 'demo-config.json');
// JSON is YAML: the config loader reads it as is.
writeFileSync(configPath, JSON.stringify({ ...demo.raw, limits: { prefix: values.prefix } }, null, 2));
const { adAccountId, conversionToken, adminToken } = demo.credentials;

/** One instance of the real bin, from source; resolves with its URL once it listens. */
function instance(port: string): Promise<{ proc: ChildProcess; url: string }> {
  const args = ['--port', port, '--config', configPath, '--store', values.store, '--limits', values.limits];
  const proc = spawn(
    process.execPath,
    ['--conditions=@org/source', '--import', 'tsx', 'src/bin.ts', ...args],
    {
      cwd: pkg,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  return new Promise((resolve, reject) => {
    proc.stdout?.on('data', (d) => {
      out += String(d);
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ proc, url: m[1] as string });
    });
    proc.on('exit', (code) => reject(new Error(`an instance exited (${code}) before listening:\n${out}`)));
  });
}

const post = (url: string, data: unknown[], query = '') =>
  fetch(`${url}/v5/ad_accounts/${adAccountId}/events${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${conversionToken}`, 'content-type': JSON_CONTENT_TYPE },
    body: JSON.stringify({ data }),
  });

/** The spec's demo event, dated now, with an event_id of its own. */
function demoEvent(eventId: string) {
  const e = DEMO_REQUEST.data[0];
  return { ...e, event_time: Math.floor(Date.now() / 1000), event_id: eventId };
}

async function tryIt(a: string, b: string): Promise<boolean> {
  const id = `two-instances-${Date.now()}`;
  const both = await Promise.all([a, b].map((u) => post(u, [demoEvent(id)]).then((r) => r.json())));
  const warned = both.filter((x) => x.events[0].warning_message !== null).length;
  const stored = await fetch(`${b}/admin/events?ad_account_id=${adAccountId}&event_id=${id}`, {
    headers: { authorization: `Bearer ${adminToken}` },
  }).then((r) => r.json() as Promise<{ items: unknown[] }>);
  console.log(
    `same event_id to both at once: ${both.map((x) => x.events[0].status).join(' and ')}, ${warned} with the duplicate warning; stored ${stored.items.length} time(s)`,
  );
  const limit = RATE_LIMITS.testRequests.limit;
  const n = limit + 5;
  const started = Date.now();
  const statuses = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      post(i % 2 ? a : b, [demoEvent(`${id}-t${i}`)], '?test=true').then(async (r) => {
        await r.arrayBuffer();
        return r.status;
      }),
    ),
  );
  const seconds = Math.ceil((Date.now() - started) / 1000);
  const admitted = statuses.filter((s) => s === 200).length;
  console.log(
    `${n} test requests over both in ${seconds <= 1 ? 'one second' : `${seconds} seconds`}: ${admitted} answered 200, ${statuses.filter((s) => s === 429).length} answered 429`,
  );
  // A burst that spans more than one second (a busy machine) may be admitted 10 per second it spans.
  const limitsHeld = seconds <= 1 ? admitted === limit : admitted <= limit * seconds;
  return warned === 1 && stored.items.length === 1 && limitsHeld;
}

const ports = values.ports.split(',');
const running: ChildProcess[] = [];
const stop = () => {
  for (const p of running) p.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
try {
  const [a, b] = await Promise.all([instance(ports[0] ?? '8081'), instance(ports[1] ?? '8082')]);
  running.push(a.proc, b.proc);
  console.log(`two instances: ${a.url} and ${b.url} (store ${values.store}, limits ${values.limits})`);
  console.log(`shared demo config: ad account ${adAccountId}`);
  console.log(`  conversion token  ${conversionToken}\n  admin token       ${adminToken}`);
  if (values.try) {
    const ok = await tryIt(a.url, b.url);
    console.log(ok ? 'both instances share the store and the limits' : 'UNEXPECTED: see the lines above');
    process.exitCode = ok ? 0 : 1;
    stop();
  } else console.log('Ctrl-C stops both');
} catch (e) {
  console.error((e as Error).message);
  process.exitCode = 1;
  stop();
}
