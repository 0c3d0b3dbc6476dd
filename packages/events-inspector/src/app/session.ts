// The admin session: the page signs in by posting the admin token once to POST /admin/session, whose
// HttpOnly cookie authenticates every later call, the event stream and export downloads. The page never
// stores the token and never puts it in a URL. The session's CSRF token (C71), answered at sign-in and by
// GET /admin/session after a reload, is kept in memory and sent on every call that changes state.
import { EventsApiError } from '@org/events-client';
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { admin, setCsrfToken } from './api/client.js';

export async function signIn(token: string): Promise<void> {
  const session = await admin.call('admin/session/create', { body: { token } });
  setCsrfToken(session.csrf_token);
}

export async function signOut(): Promise<void> {
  try {
    await admin.call('admin/session/delete');
  } finally {
    setCsrfToken(null);
  }
}

/** Whether the cookie (if any) is a live session; if so its CSRF token is kept for later calls. */
export async function probeSession(): Promise<boolean> {
  try {
    setCsrfToken((await admin.call('admin/session/get')).csrf_token);
    return true;
  } catch (e) {
    if (e instanceof EventsApiError && e.status === 401) return false;
    throw e;
  }
}

/** Lets any view report that the session ended (an API call answered 401) so the app shows the login. */
export const SessionContext = createContext<{ expired: () => void }>({ expired: () => {} });

export function useSession() {
  return useContext(SessionContext);
}

/** Runs an API call; a 401 ends the session in the app, other errors are returned as text. */
export function useApiCall() {
  const session = useSession();
  return async <T>(fn: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> => {
    try {
      return { ok: true, value: await fn() };
    } catch (error) {
      if (error instanceof EventsApiError && error.status === 401) session.expired();
      return { ok: false, error };
    }
  };
}
