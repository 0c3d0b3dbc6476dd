import { randomBytes, timingSafeEqual } from 'node:crypto';
import { LIMITS, SECURITY_SCHEMES } from '@org/events-types';
import type { Clock } from '../core/clock.js';

/** The name an apiKey scheme of the spec travels under; a spec without it is a generator bug, said at load. */
function apiKeyName(name: string, what: string): string {
  const scheme = SECURITY_SCHEMES.find((s) => s.name === name);
  if (!scheme || !('parameter' in scheme))
    throw new Error(`spec: the ${name} security scheme (${what}) is missing`);
  return scheme.parameter.name as string;
}

/** The cookie of the admin session scheme in the spec (C64). */
export const SESSION_COOKIE = apiKeyName('admin_session', 'an apiKey cookie, C64');
/** The header of the session's CSRF token (C71), lower-case as Node gives request headers. */
export const CSRF_HEADER = apiKeyName('admin_csrf', 'an apiKey header, C71').toLowerCase();
export const SESSION_MAX_AGE_SECONDS = LIMITS.admin_session_max_age_seconds.value;

/** One live session: when it ends (ms) and its CSRF token (C71). */
export interface AdminSession {
  expiresAt: number;
  csrfToken: string;
}

const random = () => randomBytes(32).toString('base64url');

/**
 * Admin sessions of C64: random opaque ids in memory, each valid for SESSION_MAX_AGE_SECONDS, each with a
 * CSRF token of its own made with it and ended with it (C71). Nothing is stored, so a restart logs everyone
 * out, which suits a development tool.
 */
export class AdminSessions {
  readonly #sessions = new Map<string, AdminSession>();
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  create(): { id: string; session: AdminSession } {
    const now = this.#clock.now();
    // Expired sessions go when new ones are made: the map stays as small as the live sessions.
    for (const [id, s] of this.#sessions) if (s.expiresAt <= now) this.#sessions.delete(id);
    const id = random();
    const session = { expiresAt: now + SESSION_MAX_AGE_SECONDS * 1000, csrfToken: random() };
    this.#sessions.set(id, session);
    return { id, session };
  }

  /** The live session of a cookie value, if any. */
  get(id: string | undefined): AdminSession | undefined {
    if (id === undefined) return undefined;
    const s = this.#sessions.get(id);
    return s !== undefined && s.expiresAt > this.#clock.now() ? s : undefined;
  }

  valid(id: string | undefined): boolean {
    return this.get(id) !== undefined;
  }

  delete(id: string | undefined): void {
    if (id !== undefined) this.#sessions.delete(id);
  }
}

/** Whether a sent CSRF token is the session's, in constant time (C71). */
export function sameToken(session: AdminSession, sent: string): boolean {
  const a = Buffer.from(session.csrfToken);
  const b = Buffer.from(sent);
  return a.length === b.length && timingSafeEqual(a, b);
}
