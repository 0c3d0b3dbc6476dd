// The admin API, as the spec's generated operations (C106, C107): every call goes to the page's own origin
// with the session cookie (set by POST /admin/session); the admin token is sent once, in the login body, and
// never kept by the page or put in a URL. Calls that change state also send the session's CSRF token (C71),
// kept in this module's memory only; the operations table says which calls those are and the header's name.
// The referrer policy is same-origin: the page is served with no-referrer, under which the Fetch standard
// sends `Origin: null` on a same-origin POST (Chromium sends the origin anyway), and the server wants the
// page's origin.
import { createAdminClient, EventsApiError } from '@org/events-client';

let csrfToken: string | null = null;

/** Keeps (or forgets, with null) the CSRF token of the current session, answered by /admin/session. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

export const admin = createAdminClient({
  csrfToken: () => csrfToken,
  init: { credentials: 'same-origin', referrerPolicy: 'same-origin' },
});

/** The first detail's problem, else the message: what a form shows under itself. */
export function describeError(e: unknown): string {
  if (e instanceof EventsApiError) {
    const d = e.details[0];
    return d ? `${e.body.message} ${d.path}: ${d.problem}` : e.body.message;
  }
  return e instanceof Error ? e.message : String(e);
}
