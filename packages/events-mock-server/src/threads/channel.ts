import type { TransferListItem, Worker } from 'node:worker_threads';
import { type Answer, type Call, READY_ID } from './messages.js';
import { type RelayedError, ThreadError } from './thread-error.js';

export interface ChannelOptions {
  /** The thread as its exit error names it: `<name> exited with code 1`. */
  name: string;
  /** What an error thrown on the thread becomes for the caller: a ThreadError unless given. */
  revive?: (e: RelayedError) => Error;
  /** After each answer has been taken off the pending calls (the pool times an idle thread from there). */
  onAnswer?: () => void;
  /** Once, when the thread fails or exits, after every pending call has been rejected. */
  onDeath?: (e: Error) => void;
}

export interface CallOptions {
  /** Moved to the thread instead of copied (the thread then owns them). */
  transfer?: readonly TransferListItem[];
  /**
   * What the call rejects with if the thread dies before answering: a commit may have been made before it
   * did (C74), which the plain error would not say.
   */
  lost?: (e: Error) => Error;
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  lost?: ((e: Error) => Error) | undefined;
}

/**
 * Calls to one worker thread and their answers (its other side is `serve` in serve.ts): each call gets an
 * id, and its promise settles when the answer with that id comes back. A thread that fails or exits rejects
 * every call it had not answered, and refuses every later one without posting it.
 */
export class Channel {
  readonly worker: Worker;
  readonly #options: ChannelOptions;
  readonly #pending = new Map<number, Pending>();
  #next = READY_ID + 1;
  #dead: Error | undefined;
  #died = false;

  constructor(worker: Worker, options: ChannelOptions) {
    this.worker = worker;
    this.#options = options;
    worker.on('message', (a: Answer) => this.#answer(a));
    worker.on('error', (e) => this.#die(e));
    worker.on('exit', (code) => this.#die(new Error(`${options.name} exited with code ${code}`)));
  }

  /** Calls posted and not answered yet. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Why calls are refused: the thread's failure or exit, or what `refuse` was given. */
  get dead(): Error | undefined {
    return this.#dead;
  }

  /**
   * The thread's ready answer (messages.ts, READY_ID): what it opened, or the error it failed with. Asked
   * before the thread can have answered, in the turn that started it.
   */
  ready<T>(): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(READY_ID, { resolve: resolve as (v: unknown) => void, reject });
    });
  }

  call<T>(method: string, args: unknown[], options: CallOptions = {}): Promise<T> {
    // A thread already gone is certain: the call is never posted.
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#next++;
    const call: Call = { id, method, args };
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject, lost: options.lost });
      this.worker.postMessage(call, options.transfer);
    });
  }

  /** Refuses later calls with `reason` (the thread is being stopped); calls pending still get answered. */
  refuse(reason: Error): void {
    this.#dead ??= reason;
  }

  #answer(a: Answer): void {
    const p = this.#pending.get(a.id);
    this.#pending.delete(a.id);
    this.#options.onAnswer?.();
    if (!p) return;
    if (a.error) p.reject(this.#options.revive ? this.#options.revive(a.error) : new ThreadError(a.error));
    else p.resolve(a.value);
  }

  #die(e: Error): void {
    this.#dead ??= e;
    for (const p of this.#pending.values()) p.reject(p.lost ? p.lost(e) : e);
    this.#pending.clear();
    if (this.#died) return;
    this.#died = true;
    this.#options.onDeath?.(e);
  }
}
