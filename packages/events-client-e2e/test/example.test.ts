// The README's runnable examples (examples/quickstart.ts, examples/admin.ts) run and print what it shows.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const run = (file: string) =>
  execFileSync(process.execPath, ['--conditions=@org/source', '--import', 'tsx', file], {
    cwd: fileURLToPath(new URL('../', import.meta.url)),
    encoding: 'utf8',
  });

test('examples/quickstart.ts: hashed and sent, a local failure, a typed 401', () => {
  const out = run('examples/quickstart.ts');
  expect(out.split('\n')).toEqual([
    '0 processed ',
    '1 invalid Invalid event_name: subscription. Use a supported conversion event_name (for example subscribe, checkout). Did you mean subscribe?',
    'error 401 unauthorized Authentication failed.',
    '',
  ]);
}, 30_000);

test('examples/admin.ts: the failed request and its field, a fault, an export URL, a typed 404', () => {
  expect(run('examples/admin.ts').split('\n')).toEqual([
    '0 processed ',
    '1 failed event_name',
    'fault rate_limited 1',
    '/admin/requests/export?format=csv&status=200',
    'error 404 not_found no fault "no-such-fault"',
    '',
  ]);
}, 30_000);
