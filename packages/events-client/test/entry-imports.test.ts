// The core entry point runs in browsers and edge runtimes: nothing under src/client, src/generated or
// src/index.ts imports a Node module or the CLI (the browser test bundles it; this one runs without Chromium).
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const src = fileURLToPath(new URL('../src/', import.meta.url));
const core = [
  'index.ts',
  ...readdirSync(`${src}client`).map((f) => `client/${f}`),
  ...readdirSync(`${src}generated`).map((f) => `generated/${f}`),
];

test('the core entry imports only relative files, @org/events-types and @org/events-validators', () => {
  const imports = core.flatMap((f) =>
    [...readFileSync(`${src}${f}`, 'utf8').matchAll(/(?:from|import)\s+'([^']+)'/g)].map((m) => m[1]!),
  );
  const external = [...new Set(imports.filter((i) => !i.startsWith('./') && !i.startsWith('../')))].sort();
  expect(external).toEqual(['@org/events-types', '@org/events-validators']);
  expect(imports.filter((i) => i.includes('/cli/'))).toEqual([]);
});
