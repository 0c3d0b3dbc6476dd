import { randomBytes } from 'node:crypto';
import { LIMITS, SECURITY_SCHEMES } from '@org/events-types';
import type { Clock } from '../core/clock.js';

const scheme = SECURITY_SCHEMES.find((s) => s.name === 'admin_session');
// The cookie's name lives in the spec only; a spec without the scheme is a generator bug, said at load.
if (!scheme || !('parameter' in scheme))
  throw new Error('spec: the admin_session security scheme (an apiKey cookie, C64) is missing');
/** The cookie of the admin session scheme in the spec (C64). */
export const SESSION_COOKIE = scheme.parameter.name as string;
export const SESSION_MAX_AGE_SECONDS = LIMITS.admin_session_max_age_seconds.value;

/**
 * Admin sessions of C64: random opaque ids in memory, each valid for SESSION_MAX_AGE_SECONDS. Nothing is
 * stored, so a restart logs everyone out, which suits a development tool.
 */
export class AdminSessions {
  readonly #expires = new Map<string, number>();
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  create(): string {
    const now = this.#clock.now();
    // Expired sessions go when new ones are made: the map stays as small as the live sessions.
    for (const [id, at] of this.#expires) if (at <= now) this.#expires.delete(id);
    const id = randomBytes(32).toString('base64url');
    this.#expires.set(id, now + SESSION_MAX_AGE_SECONDS * 1000);
    return id;
  }

  valid(id: string | undefined): boolean {
    if (id === undefined) return false;
    const at = this.#expires.get(id);
    return at !== undefined && at > this.#clock.now();
  }

  delete(id: string | undefined): void {
    if (id !== undefined) this.#expires.delete(id);
  }
}
