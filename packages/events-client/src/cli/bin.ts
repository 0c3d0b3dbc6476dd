#!/usr/bin/env -S node --max-semi-space-size=1
import { once } from 'node:events';
import { main } from './main.js';
import { EXIT } from './report.js';

main(process.argv.slice(2), {
  out: async (s) => {
    if (!process.stdout.write(s)) await once(process.stdout, 'drain');
  },
  err: (s) => process.stderr.write(s),
  stdoutTty: process.stdout.isTTY === true,
  stderrTty: process.stderr.isTTY === true,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    // Never the token: only the error's own message.
    process.stderr.write(`events: ${(e as Error).message}\n`);
    process.exitCode = EXIT.internal;
  },
);
