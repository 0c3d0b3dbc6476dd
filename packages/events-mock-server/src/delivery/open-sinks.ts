import { readFileSync } from 'node:fs';
import { ConversionsApiSink } from './conversions-api-sink.js';
import type { SinkConfig } from './delivery-config.js';
import type { Sink } from './sink.js';

/**
 * The sinks of a config (C100). A Conversions API token is read here, from its environment variable or
 * file, and kept only in the sink; a missing one fails the start with where it was looked for. The NATS
 * client is loaded only when a NATS sink is configured (an optional dependency, as pg is for PostgreSQL).
 */
export async function openSinks(
  configs: readonly SinkConfig[],
  now: () => number,
  timeoutSeconds: number,
): Promise<Sink[]> {
  const sinks: Sink[] = [];
  try {
    for (const c of configs) {
      if (c.kind === 'nats') {
        const { NatsSink } = await import('./nats-sink.js');
        sinks.push(await NatsSink.open(c, timeoutSeconds * 1000));
        continue;
      }
      sinks.push(new ConversionsApiSink(c, readToken(c.name, c.tokenEnv, c.tokenFile), now));
    }
  } catch (e) {
    await Promise.all(sinks.map((s) => s.close().catch(() => {})));
    throw e;
  }
  return sinks;
}

function readToken(sink: string, env: string | null, file: string | null): string {
  if (env !== null) {
    const v = process.env[env]?.trim();
    if (!v) throw new Error(`delivery sink ${sink}: the environment variable ${env} holds no token`);
    return v;
  }
  let v: string;
  try {
    v = readFileSync(file as string, 'utf8').trim();
  } catch (e) {
    throw new Error(`delivery sink ${sink}: cannot read the token file ${file}: ${(e as Error).message}`);
  }
  if (!v) throw new Error(`delivery sink ${sink}: the token file ${file} is empty`);
  return v;
}
