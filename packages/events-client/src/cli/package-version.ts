import { readFileSync } from 'node:fs';

/** This package's version, for `events --version`: read from package.json, two folders up from src/cli and dist/cli. */
export const packageVersion: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
