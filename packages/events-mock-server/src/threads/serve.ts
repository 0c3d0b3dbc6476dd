// The thread side of a Channel (channel.ts): answers the calls posted to this thread, relaying what they throw.
import { parentPort, receiveMessageOnPort } from 'node:worker_threads';
import { type Answer, type Call, READY_ID } from './messages.js';
import { relayError } from './thread-error.js';

/** Runs a call: the method it names with its arguments; what it returns (or resolves to) is the answer. */
export type Handler = (method: string, args: unknown[]) => unknown;

/**
 * An answer whose buffers move to the caller instead of being copied (a message copies every byte it holds
 * otherwise); they are empty on this thread afterwards.
 */
export class Transfer {
  constructor(
    readonly value: unknown,
    readonly list: readonly ArrayBuffer[],
  ) {}
}

export interface ServeOptions {
  /**
   * Given, every call waiting is taken at once and they run one after another, those `first` picks before
   * the rest, each group in the order it was posted: a caller whose calls must not queue behind a steady
   * stream of others (the deliverer, C114).
   */
  first?: (call: Call) => boolean;
}

async function answer(call: Call, handle: Handler): Promise<void> {
  try {
    const value = await handle(call.method, call.args);
    if (value instanceof Transfer)
      parentPort?.postMessage({ id: call.id, value: value.value } satisfies Answer, [...value.list]);
    else parentPort?.postMessage({ id: call.id, value } satisfies Answer);
  } catch (e) {
    parentPort?.postMessage({ id: call.id, error: relayError(e) } satisfies Answer);
  }
}

export function serve(handle: Handler, options: ServeOptions = {}): void {
  const port = parentPort;
  const { first } = options;
  if (!port) return;
  if (!first) {
    port.on('message', (c: Call) => void answer(c, handle));
    return;
  }
  port.on('message', async (c: Call) => {
    const calls = [c];
    for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) calls.push(m.message as Call);
    for (const call of calls) if (first(call)) await answer(call, handle);
    for (const call of calls) if (!first(call)) await answer(call, handle);
  });
}

/** Posts the ready answer (READY_ID) the caller's Channel.ready waits for: what `open` returns, or its error. */
export function signalReady(open: () => unknown): void {
  try {
    parentPort?.postMessage({ id: READY_ID, value: open() } satisfies Answer);
  } catch (e) {
    parentPort?.postMessage({ id: READY_ID, error: relayError(e) } satisfies Answer);
  }
}
