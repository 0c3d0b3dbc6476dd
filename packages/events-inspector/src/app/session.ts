// The admin session: the page signs in by posting the admin token once to POST /admin/session, whose
// HttpOnly cookie authenticates every later call, the event stream and export downloads. The page never
// stores the token and never puts it in a URL.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { ApiError, api } from './api/client.js';

export async function signIn(token: string): Promise<void> {
  await api.post('/admin/session', { token });
}

export async function signOut(): Promise<void> {
  await api.del('/admin/session');
}

/** Whether the cookie (if any) is a live session: a cheap admin call answers 401 when it is not. */
export async function probeSession(): Promise<boolean> {
  try {
    await api.get('/admin/events?limit=1');
    return true;
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return false;
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
      if (error instanceof ApiError && error.status === 401) session.expired();
      return { ok: false, error };
    }
  };
}
