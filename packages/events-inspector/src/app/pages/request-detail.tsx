import { useEffect, useState } from 'preact/hooks';
import { admin, describeError } from '../api/client.js';
import type { MatchQuality, RequestDetail, RequestItem } from '../api/types.js';
import { JsonView } from '../components/json-view.js';
import { Refusal } from '../components/refusal.js';
import { isHashedNote, messagesByField } from '../lib/field-messages.js';
import { dateTimeOf, percent } from '../lib/format.js';
import { useApiCall } from '../session.js';

/** One logged request: its answer, and each event with the fields its messages name marked. */
export function RequestDetailPage({ id }: { id: string }) {
  const [detail, setDetail] = useState<RequestDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = useApiCall();
  useEffect(() => {
    setDetail(null);
    setError(null);
    run(() => admin.call('admin/requests/get', { path: { request_id: id } })).then((r) =>
      r.ok ? setDetail(r.value) : setError(describeError(r.error)),
    );
  }, [id]);

  if (error)
    return (
      <section>
        <a href="#/requests">← Requests</a>
        <p class="error">{error}</p>
      </section>
    );
  if (!detail) return <p class="muted">Loading…</p>;
  return (
    <section class="detail">
      <a href={`#/requests?ad_account_id=${encodeURIComponent(detail.ad_account_id)}`}>← Requests</a>
      <h1>
        Request <code>{detail.request_id}</code>
      </h1>
      <dl class="facts">
        {detail.client_request_id !== null && (
          <>
            {/* C118: the client's own x-request-id, kept beside the server's id; many requests may share it. */}
            <dt>Client request id</dt>
            <dd>
              <a href={`#/requests?client_request_id=${encodeURIComponent(detail.client_request_id)}`}>
                <code>{detail.client_request_id}</code>
              </a>
            </dd>
          </>
        )}
        <dt>Received</dt>
        <dd>{dateTimeOf(detail.received_at)}</dd>
        <dt>Ad account</dt>
        <dd>{detail.ad_account_id}</dd>
        <dt>Status</dt>
        <dd>
          <span class={`status s${Math.floor(detail.status / 100)}`}>{detail.status}</span>
          {detail.test && <span class="badge test">test</span>}
        </dd>
        <dt>Events</dt>
        <dd>
          {detail.events} sent: <span class="processed">{detail.processed} processed</span>,{' '}
          <span class="failed">{detail.failed} failed</span>,{' '}
          <span class="warned">{detail.warned} warned</span>
        </dd>
        <dt>Token</dt>
        <dd>{detail.token_id ?? '-'}</dd>
        <dt>Took</dt>
        <dd>{detail.duration_ms} ms</dd>
      </dl>
      {detail.error && <Refusal detail={{ ...detail, error: detail.error }} />}
      {detail.body_truncated && (
        <p class="muted">The body was too large to keep whole; events past the kept part are not shown.</p>
      )}
      {detail.items.map((item) => (
        <EventCard key={item.index} item={item} />
      ))}
    </section>
  );
}

function EventCard({ item }: { item: RequestItem }) {
  const failed = messagesByField(item.error_message, item.fields);
  const logged = messagesByField(item.warning_message, item.fields);
  // C125: the log's notes of the fields the service hashed are no warning its client received.
  const hashed = logged.filter((m) => isHashedNote(m.message));
  const warned = logged.filter((m) => !isHashedNote(m.message));
  const notes = new Map<string, { text: string; severity: 'failed' | 'warned' }>();
  for (const m of warned) if (m.field) notes.set(m.field, { text: m.message, severity: 'warned' });
  // A failure outranks a warning on the same field.
  for (const m of failed) if (m.field) notes.set(m.field, { text: m.message, severity: 'failed' });
  const name = (item.event as { event_name?: unknown } | null)?.event_name;
  return (
    <article class={`event card ${item.status}`} data-index={item.index} data-status={item.status}>
      <header>
        <h2>
          Event {item.index}
          {typeof name === 'string' && <span class="muted"> · {name}</span>}
        </h2>
        <span class={`badge ${item.status}`}>{item.status}</span>
        {warned.length > 0 && <span class="badge warned">warned</span>}
      </header>
      {item.duplicate_of && (
        <p class="duplicate">
          Duplicate of event <code>{item.duplicate_of.event_id}</code> received{' '}
          {dateTimeOf(item.duplicate_of.received_at)}{' '}
          {item.duplicate_of.request_id === null ? (
            // A sighting of the tracking tag, or an event no longer stored: there is no request to open.
            <>by the tracking tag or in a request no longer kept.</>
          ) : (
            <>
              in{' '}
              <a href={`#/requests/${encodeURIComponent(item.duplicate_of.request_id)}`}>
                the earlier request
              </a>
              .
            </>
          )}
        </p>
      )}
      <div class="event-body">
        {item.event === null ? (
          <p class="muted">
            The body was not kept (<code>request_log.bodies</code> or <code>max_body_bytes</code>); there is
            no event to show.
          </p>
        ) : (
          <JsonView value={item.event} highlight={item.fields} notes={notes} />
        )}
        <aside class="messages">
          {failed.length > 0 && <h3>Failed because</h3>}
          <ul>
            {failed.map((m) => (
              <li key={`f${m.field}${m.message}`} class="failed" data-field={m.field}>
                {m.message}
              </li>
            ))}
          </ul>
          {warned.length > 0 && <h3>Warnings</h3>}
          <ul>
            {warned.map((m) => (
              <li key={`w${m.field}${m.message}`} class="warned" data-field={m.field}>
                {m.message}
              </li>
            ))}
          </ul>
          {hashed.length > 0 && <h3>Hashed by this service</h3>}
          <ul>
            {hashed.map((m) => (
              <li key={`h${m.field}`} class="hashed" data-field={m.field}>
                {m.message}
              </li>
            ))}
          </ul>
          {item.match_quality && <Quality q={item.match_quality} />}
          {item.delivery && item.delivery.length > 0 && <Delivery rows={item.delivery} />}
        </aside>
      </div>
    </article>
  );
}

/** Where the event went onward (C100): per sink, its state, attempts, last error and the upstream's answer. */
function Delivery({ rows }: { rows: NonNullable<RequestItem['delivery']> }) {
  return (
    <div class="delivery">
      <h3>Delivery</h3>
      <table class="compact">
        <thead>
          <tr>
            <th>Sink</th>
            <th>State</th>
            <th>Attempts</th>
            <th>Detail</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((d) => (
            <tr key={d.sink} data-sink={d.sink} data-state={d.state}>
              <td>
                <code>{d.sink}</code>
              </td>
              <td class={d.state === 'delivered' ? 'yes' : d.state === 'dead' ? 'no' : 'muted'}>{d.state}</td>
              <td>{d.attempts}</td>
              <td>
                {d.state === 'delivered' && d.delivered_at !== null && <>at {dateTimeOf(d.delivered_at)}</>}
                {d.upstream && (
                  <>
                    {' '}
                    upstream: {d.upstream.status}
                    {d.upstream.error_message && <>: {d.upstream.error_message}</>}
                    {d.upstream.warning_message && <> (warning: {d.upstream.warning_message})</>}
                  </>
                )}
                {d.state === 'pending' && d.next_attempt_at !== null && (
                  <>next attempt {dateTimeOf(d.next_attempt_at)}</>
                )}
                {d.last_error && d.state !== 'delivered' && <span class="failed"> {d.last_error}</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Which identifiers the event carries and whether they are well-formed; recommended fields it lacks. */
function Quality({ q }: { q: MatchQuality }) {
  return (
    <div class="quality">
      <h3>
        Match quality <span class="score">{percent(q.score)}</span>
      </h3>
      <table class="compact">
        <thead>
          <tr>
            <th>Identifier</th>
            <th>Present</th>
            <th>Well-formed</th>
          </tr>
        </thead>
        <tbody>
          {q.identifiers.map((i) => (
            <tr key={i.field}>
              <td>
                <code>{i.field}</code>
              </td>
              <td class={i.present ? 'yes' : 'no'}>{i.present ? 'yes' : 'no'}</td>
              <td class={!i.present ? 'muted' : i.well_formed ? 'yes' : 'no'}>
                {!i.present ? '-' : i.well_formed ? 'yes' : 'no'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {q.missing_recommended.length > 0 && (
        <p>
          Recommended but missing:{' '}
          {q.missing_recommended.map((f, i) => (
            <span key={f}>
              {i > 0 && ', '}
              <code>{f}</code>
            </span>
          ))}
        </p>
      )}
    </div>
  );
}
