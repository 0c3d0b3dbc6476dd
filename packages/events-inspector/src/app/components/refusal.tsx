import type { RequestDetail } from '../api/types.js';
import { JsonView } from './json-view.js';

type Refused = RequestDetail & { error: NonNullable<RequestDetail['error']> };

/** The body as JSON when it is JSON; a refused body often is not (that may be why it was refused). */
function parsed(body: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch {
    return { ok: false };
  }
}

/**
 * Why a request was refused as a whole (C96): the answer's message, each detail the client received, and the
 * body as the log kept it, with the members the details name marked.
 */
export function Refusal({ detail }: { detail: Refused }) {
  const { error, body } = detail;
  const details = error.details ?? [];
  const json = body === null ? null : parsed(body);
  const notes = new Map(details.map((d) => [d.path, { text: d.problem, severity: 'failed' as const }]));
  return (
    <div class="refusal">
      <p class="error request-error">
        {error.message} <span class="muted">(code {error.code})</span>
      </p>
      {details.length > 0 && (
        <ul class="refusal-details">
          {details.map((d) => (
            <li key={`${d.path}${d.problem}`} class="failed" data-field={d.path}>
              <code>{d.path}</code>: {d.problem}
            </li>
          ))}
        </ul>
      )}
      {body === null ? (
        <p class="muted">
          No body is kept: it was not read (the request was refused before), or not kept (
          <code>request_log.bodies</code>, <code>max_body_bytes</code>).
        </p>
      ) : json?.ok ? (
        <JsonView value={json.value} highlight={details.map((d) => d.path)} notes={notes} />
      ) : (
        <pre class="raw-body">{body}</pre>
      )}
    </div>
  );
}
