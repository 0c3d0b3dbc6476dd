// The README's runnable example (examples/quickstart.ts) runs and prints what the README shows.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

test('examples/quickstart.ts: hashed and sent, a local failure, a typed 401', () => {
  const out = execFileSync(
    process.execPath,
    ['--conditions=@org/source', '--import', 'tsx', 'examples/quickstart.ts'],
    { cwd: fileURLToPath(new URL('../', import.meta.url)), encoding: 'utf8' },
  );
  expect(out.split('\n')).toEqual([
    '0 processed ',
    '1 invalid Invalid event_name: subscription. Use a supported conversion event_name (for example subscribe, checkout). Did you mean subscribe?',
    'error 401 unauthorized Authentication failed.',
    '',
  ]);
}, 30_000);
