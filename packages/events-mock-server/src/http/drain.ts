import type { Socket } from 'node:net';

/**
 * C122: once its answer is written, the connection is half-closed instead of closed, and what the client
 * still sends is discarded for at most `ms`. Node's HTTP server ends a `Connection: close` answer with
 * `socket.destroySoon()`; for this socket that becomes `end()` now and `destroy()` at the bound (or as soon
 * as the client ends its side, which Node's server answers by closing).
 */
export function halfCloseAfterAnswer(socket: Socket, ms: number): void {
  socket.destroySoon = function halfClose(this: Socket) {
    this.end();
    const timer = setTimeout(() => this.destroy(), ms);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
  };
}
