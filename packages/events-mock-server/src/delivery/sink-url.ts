/**
 * Sink URLs carry no credentials (C113): a token goes in `token_env` or `token_file`, never in a URL that is
 * printed at start, kept in errors and shown by `/readyz`; fetch refuses such URLs anyway.
 */

/** Whether `url` holds a user name or password (`http://user:pw@host`). */
export function hasCredentials(url: string): boolean {
  try {
    const u = new URL(url);
    return u.username !== '' || u.password !== '';
  } catch {
    return false;
  }
}

/** `url` with any user name and password replaced by `***`, for messages about it. */
export function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    if (u.username === '' && u.password === '') return url;
    u.username = '***';
    u.password = '';
    return u.toString();
  } catch {
    // Not a URL: shown as given, but for what reads as user info before a host.
    return url.replace(/[^\s/@]+@/, '***@');
  }
}

/** The problem of a sink URL with credentials; `tokenPlace` says where the token goes instead. */
export function credentialsProblem(tokenPlace: string): string {
  return `must not hold a user name or password: put the upstream token in ${tokenPlace}`;
}
