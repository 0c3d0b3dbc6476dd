#!/usr/bin/env node
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { checkCitations } from './check/citations.js';
import { checkProseValues } from './check/prose-values.js';
import { checkTraceability } from './check/traceability.js';
import { runGen } from './emit/run.js';
import { emitters } from './emitters/index.js';
import { SpecError } from './load/spec-error.js';
import { irStats } from './model/build-ir.js';

const usage = `Usage: pnpm gen [--check] [--spec DIR] [--root DIR]

  Loads spec/openapi.yaml and its data files, builds the IR and writes every
  packages/*/src/generated file (and the generated docs).

  --check     write nothing; exit 1 and name the files that differ from the spec
              (changed, missing, or stale files that should no longer exist)
  --spec DIR  folder holding openapi.yaml (default: <root>/spec)
  --root DIR  repository root the emitted paths are relative to (default: this repository)
`;

async function main(): Promise<number> {
  let args: ReturnType<
    typeof parseArgs<{
      options: {
        check: { type: 'boolean' };
        spec: { type: 'string' };
        root: { type: 'string' };
        help: { type: 'boolean' };
      };
    }>
  >;
  try {
    args = parseArgs({
      options: {
        check: { type: 'boolean' },
        spec: { type: 'string' },
        root: { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
    });
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${usage}`);
    return 2;
  }
  if (args.values.help) {
    process.stdout.write(usage);
    return 0;
  }
  const root = resolve(args.values.root ?? fileURLToPath(new URL('../../..', import.meta.url)));
  const check = args.values.check ?? false;
  const specDir = args.values.spec ? resolve(args.values.spec) : join(root, 'spec');
  try {
    const result = await runGen({
      root,
      specDir,
      check,
      emitters,
      // Every cited decision id has a record; every path the traceability table names exists; no prose
      // writes a limit's value out (C108).
      verify: async (ir, spec) => {
        checkProseValues(spec, ir);
        await checkCitations(
          root,
          ir,
          emitters.flatMap((e) => e.owns),
        );
        await checkTraceability(root, join(specDir, 'README.md'));
      },
    });
    // performance.now() counts from process start, so this is the whole run, module loading included.
    const ms = Math.round(performance.now());
    const s = irStats(result.ir);
    const summary = `${result.files.length} files; IR: ${s.schemas} schemas, ${s.fields} fields, ${s.enums} enums, ${s.limits} limits, ${s.rules} rules, ${s.messages} messages, ${s.operations} operations, ${s.decisions} decisions`;
    if (check) {
      if (result.changed.length || result.stale.length) {
        for (const f of result.changed) process.stderr.write(`differs from the spec: ${f}\n`);
        for (const f of result.stale) process.stderr.write(`stale (no longer generated): ${f}\n`);
        process.stderr.write(`gen --check failed: run \`pnpm gen\` and commit the result (${ms} ms)\n`);
        return 1;
      }
      process.stdout.write(`gen --check: up to date, ${summary} (${ms} ms)\n`);
      return 0;
    }
    process.stdout.write(
      `gen: ${result.changed.length} written, ${result.stale.length} removed, ${summary} in ${ms} ms\n`,
    );
    return 0;
  } catch (e) {
    if (e instanceof SpecError) {
      process.stderr.write(`spec error: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}

process.exitCode = await main();
