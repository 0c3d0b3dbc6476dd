import { createRequire } from 'node:module';

/** This package's version, for `--version`; package.json is two folders up from src/core and dist/core. */
export const packageVersion: string = (
  createRequire(import.meta.url)('../../package.json') as { version: string }
).version;
