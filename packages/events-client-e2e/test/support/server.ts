import { type ClientOptions, createClient, type EventsClient } from '@org/events-client';
import { type RunningServer, type StartServerOptions, startServer } from '@org/events-mock-server';

/**
 * A real server on a free port: the demo config (one ad account, conversion and OAuth tokens), in memory. No
 * shutdown grace (C43): the tests' kept-alive sockets are idle when they close it, and the grace would hold
 * each close() for its 5 seconds.
 */
export async function demoServer(
  options: StartServerOptions = {},
): Promise<RunningServer & { creds: NonNullable<RunningServer['demo']> }> {
  const server = await startServer({
    port: 0,
    db: ':memory:',
    docs: false,
    ...options,
    transport: { shutdownGraceSeconds: 0, ...options.transport },
  });
  if (!server.demo) throw new Error('demo credentials expected');
  return Object.assign(server, { creds: server.demo });
}

/** One request the client made and what came back, as seen through the platform fetch. */
export interface Seen {
  url: string;
  body: string | null;
  status: number;
}

/** The platform fetch, recording every request and its status (what the client sent, not a stand-in). */
export function recordingFetch(): { fetch: typeof globalThis.fetch; seen: Seen[] } {
  const seen: Seen[] = [];
  const f: typeof globalThis.fetch = async (input, init) => {
    const res = await globalThis.fetch(input, init);
    seen.push({
      url: String(input),
      body: typeof init?.body === 'string' ? init.body : null,
      status: res.status,
    });
    return res;
  };
  return { fetch: f, seen };
}

/** A valid event dated now, with hashed user data. */
export function event(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    event_name: 'checkout',
    action_source: 'web',
    event_time: Math.floor(Date.now() / 1000),
    event_id: id,
    event_source_url: 'https://shop.example.com/thank-you',
    user_data: { em: ['6a6c26195c3682faa816966af789717c3bfa834eee6c599d667d2b3429c27cfd'] },
    custom_data: { currency: 'USD', value: '42.00' },
    ...extra,
  };
}

/**
 * A demo server and a client of it with the conversion token, whose fetch records every request; the
 * client options given replace the defaults.
 */
export async function demoClient(
  options: Partial<ClientOptions> = {},
  serverOptions: StartServerOptions = {},
): Promise<{ server: Awaited<ReturnType<typeof demoServer>>; client: EventsClient; seen: Seen[] }> {
  const server = await demoServer(serverOptions);
  const { fetch, seen } = recordingFetch();
  const client = createClient({
    baseUrl: server.url,
    token: server.creds.conversionToken,
    adAccountId: server.creds.adAccountId,
    fetch,
    ...options,
  });
  return { server, client, seen };
}
