#!/usr/bin/env node
// The dry run of `pnpm release` (C95): packs every public package as the publish would (pnpm rewrites
// `workspace:*`), installs the tarballs with plain npm into an empty folder and uses them as an integrator
// would: import from ESM, require() from CommonJS, TypeScript under nodenext, bundler and node10, and the
// server's start without the optional `pg`. Run after `pnpm build`; needs only the npm registry.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const repo = resolve(import.meta.dirname, '..');
const pnpmVersion = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).packageManager.split('@')[1];
const keep = process.argv.includes('--keep');

const run = (cmd, args, cwd, extra = {}) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...extra });
const step = (what) => process.stdout.write(`pack-check: ${what}\n`);

const packages = readdirSync(join(repo, 'packages'))
  .map((dir) => ({ dir: join(repo, 'packages', dir), json: join(repo, 'packages', dir, 'package.json') }))
  .filter((p) => existsSync(p.json))
  .map((p) => ({ ...p, manifest: JSON.parse(readFileSync(p.json, 'utf8')) }))
  .filter((p) => !p.manifest.private);
const names = packages.map((p) => p.manifest.name);

const work = mkdtempSync(join(tmpdir(), 'pack-check-'));
const tarballs = join(work, 'tarballs');
const app = join(work, 'app');
mkdirSync(tarballs);
mkdirSync(app);
try {
  for (const p of packages) {
    for (const field of ['license', 'repository', 'homepage', 'keywords', 'engines', 'types', 'main'])
      if (p.manifest[field] === undefined)
        throw new Error(`${p.manifest.name}: package.json has no ${field}`);
    run('npx', ['-y', `pnpm@${pnpmVersion}`, 'pack', '--pack-destination', tarballs], p.dir);
  }
  const files = readdirSync(tarballs).map((f) => join(tarballs, f));
  step(`packed ${files.length}: ${readdirSync(tarballs).join(', ')}`);
  for (const f of files) {
    const listing = run('tar', ['-xzOf', f, 'package/package.json']);
    if (listing.includes('workspace:')) throw new Error(`${f}: a workspace: range is left in package.json`);
    if (!run('tar', ['-tzf', f]).split('\n').includes('package/LICENSE')) throw new Error(`${f}: no LICENSE`);
  }

  writeFileSync(
    join(app, 'package.json'),
    `${JSON.stringify({ name: 'app', private: true, type: 'module' })}\n`,
  );
  // --ignore-scripts: better-sqlite3's addon would be fetched from GitHub or compiled for minutes; importing
  // the server does not load it (C95).
  const started = Date.now();
  run(
    'npm',
    [
      'install',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      ...files,
      '@types/node@^20.19.0',
    ],
    app,
  );
  step(`npm install of the tarballs: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  for (const optional of ['pg', 'ioredis'])
    if (existsSync(join(app, 'node_modules', optional)))
      throw new Error(`${optional} was installed; it is an optional peer`);

  // Node ESM and CommonJS: every package loads and exports something.
  for (const name of names) {
    run(
      'node',
      [
        '--input-type=module',
        '-e',
        `const m = await import('${name}'); if (!Object.keys(m).length) throw new Error('no exports');`,
      ],
      app,
    );
    run(
      'node',
      [
        '--input-type=commonjs',
        '-e',
        `const m = require('${name}'); if (!Object.keys(m).length) throw new Error('no exports');`,
      ],
      app,
    );
  }
  step(`ESM import and CommonJS require of ${names.length} packages`);

  // TypeScript, with the repository's compiler: one file using a value and a type of each package.
  const tsc = join(createRequire(join(repo, 'package.json')).resolve('typescript'), '..', 'tsc.js');
  writeFileSync(
    join(app, 'check.ts'),
    [
      "import type { ConversionEvent } from '@org/events-types';",
      "import { STANDARD_EVENT_NAMES } from '@org/events-types';",
      "import { validateBatch } from '@org/events-validators';",
      "import { createClient } from '@org/events-client';",
      "import { startServer, type StartServerOptions } from '@org/events-mock-server';",
      "import { docsRoot } from '@org/events-docs';",
      "import { inspectorRoot } from '@org/events-inspector';",
      'const names: readonly string[] = STANDARD_EVENT_NAMES;',
      'const options: StartServerOptions = { port: 0 };',
      'export const used = [names, validateBatch, createClient, startServer, options, docsRoot, inspectorRoot];',
      'export type Event = ConversionEvent;',
      '',
    ].join('\n'),
  );
  // A CommonJS module of a nodenext project: `import = require` of the ES packages (require(esm), C95).
  writeFileSync(
    join(app, 'check-cjs.cts'),
    [
      "import client = require('@org/events-client');",
      "import validators = require('@org/events-validators');",
      'export const used = [client.createClient, validators.validateBatch];',
      '',
    ].join('\n'),
  );
  const modes = {
    nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
    bundler: { module: 'esnext', moduleResolution: 'bundler' },
    node10: { module: 'commonjs', moduleResolution: 'node10' },
  };
  for (const [mode, options] of Object.entries(modes)) {
    const config = `tsconfig.${mode}.json`;
    const compilerOptions = {
      ...options,
      target: 'es2022',
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
    };
    const files = mode === 'nodenext' ? ['check.ts', 'check-cjs.cts'] : ['check.ts'];
    writeFileSync(join(app, config), JSON.stringify({ compilerOptions, files }));
    try {
      run('node', [tsc, '-p', config], app);
    } catch (e) {
      throw new Error(`TypeScript (${mode}): ${e.stdout}${e.stderr}`);
    }
  }
  step(`TypeScript: ${Object.keys(modes).join(', ')} (nodenext also from a CommonJS .cts)`);

  // The server starts without pg only on SQLite; a postgres:// store names the package to install.
  const bin = join(app, 'node_modules', '.bin', 'events-mock-server');
  let message = '';
  try {
    run(bin, ['--store', 'postgres://postgres@127.0.0.1:5432/postgres', '--port', '0'], app, {
      timeout: 30_000,
    });
  } catch (e) {
    message = `${e.stderr}`;
  }
  if (!message.includes('needs the package pg'))
    throw new Error(`start without pg: expected the install hint; got ${message}`);
  step('start without pg names it');
  // Each bin answers --version with its package's version.
  for (const p of packages)
    for (const name of Object.keys(p.manifest.bin ?? {})) {
      const version = run(join(app, 'node_modules', '.bin', name), ['--version'], app).trim();
      if (version !== p.manifest.version)
        throw new Error(`${name} --version: ${version}, expected ${p.manifest.version}`);
    }
  step('ok');
} finally {
  if (keep) step(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
