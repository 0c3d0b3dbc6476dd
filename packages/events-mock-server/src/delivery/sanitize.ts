/**
 * What of an upstream's failure is kept (C113): an upstream, or a proxy in
 * front of it, may echo the request back in its error page, headers and all, so its text can hold the
 * forward token. The outbox, `/admin/delivery`, `/readyz` and the logs keep only the status line and a short
 * excerpt of the body with everything that looks like a credential taken out.
 */

import { LIMITS } from '@org/events-types';

/** Most characters of an upstream's body kept with a failure. */
const KEPT_BODY_CHARS = LIMITS.delivery_error_body_chars.value;

const REDACTED = '[redacted]';

/**
 * Patterns of credentials, each replaced whole: an authorization scheme and what follows it, a name that says
 * key/token/secret/password followed by its value, a URL's user info, and any long run of token-like
 * characters (JWTs, API keys, hashes of tokens).
 */
const CREDENTIALS: readonly RegExp[] = [
  /\b(?:bearer|basic|token|digest)\s+[^\s"',;]+/gi,
  /\b(?:authorization|cookie|set-cookie|x-api-key|api[_-]?key|access[_-]?token|refresh[_-]?token|token|secret|password|passwd|pwd|client[_-]?secret)\b["']?\s*[:=]\s*["']?[^\s"',;&}]+/gi,
  /\/\/[^/\s:@]+:[^/\s@]+@/g,
  /[A-Za-z0-9_\-+=.~]{24,}/g,
];

/** `text` without anything that looks like a credential, nor `secrets` (the sink's own token) anywhere. */
export function redactCredentials(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join(REDACTED);
  for (const re of CREDENTIALS) out = out.replace(re, REDACTED);
  return out;
}

/**
 * The kept form of an upstream's answer: `HTTP 503 Service Unavailable: <short, redacted body>`. Control
 * characters and line breaks become spaces, so a log line stays one line.
 */
export function describeHttpFailure(
  status: number,
  statusText: string,
  body: string,
  secrets: readonly string[],
): string {
  const head = `HTTP ${status}${statusText ? ` ${redactCredentials(statusText, secrets).slice(0, 40)}` : ''}`;
  // Redacted before it is cut, so half a token at the cut is never kept either.
  const excerpt = redactCredentials(body.slice(0, 4 * KEPT_BODY_CHARS), secrets)
    .replace(/\p{Cc}+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, KEPT_BODY_CHARS);
  return excerpt ? `${head}: ${excerpt}` : head;
}
