import { useEffect, useState } from 'preact/hooks';
import { admin, describeError } from '../api/client.js';
import type { Fault, FaultKind } from '../api/types.js';
import { faultSpecOf } from '../lib/fault-form.js';
import { dateTimeOf } from '../lib/format.js';
import { useApiCall } from '../session.js';

/** Injected faults (GET/POST/DELETE /admin/faults): what the events endpoint answers on purpose. */
export function FaultsPage() {
  const [faults, setFaults] = useState<Fault[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [kind, setKind] = useState<FaultKind>('rate_limited');
  const run = useApiCall();

  const load = async () => {
    const r = await run(() => admin.call('admin/faults/list'));
    if (r.ok) setFaults(r.value.items);
    else setError(describeError(r.error));
  };
  useEffect(() => {
    load();
  }, []);

  const add = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const spec = faultSpecOf(Object.fromEntries(new FormData(form)) as Record<string, string>);
    if (typeof spec === 'string') return setError(spec);
    const r = await run(() => admin.call('admin/faults/create', { body: spec }));
    if (!r.ok) return setError(describeError(r.error));
    setError(null);
    form.reset();
    setKind('rate_limited');
    load();
  };
  /** One fault by its id, or every fault. */
  const remove = async (id: string | null) => {
    const r = await run(() =>
      id === null
        ? admin.call('admin/faults/clear')
        : admin.call('admin/faults/delete', { path: { fault_id: id } }),
    );
    if (!r.ok) setError(describeError(r.error));
    load();
  };

  return (
    <section>
      <div class="title-row">
        <h1>Faults</h1>
        <span class="spacer" />
        {faults && faults.length > 0 && (
          <button type="button" class="danger" onClick={() => remove(null)}>
            Delete all
          </button>
        )}
      </div>
      <p class="muted">
        Make the events endpoint answer 429, 503 or late on purpose, to test an integration's retries.
      </p>
      {error && <p class="error">{error}</p>}
      <table class="faults">
        <thead>
          <tr>
            <th>Kind</th>
            <th>Ad account</th>
            <th>Token</th>
            <th>Applies to</th>
            <th class="n">Matched</th>
            <th>Created</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(faults ?? []).map((f) => (
            <tr key={f.id} data-fault-id={f.id}>
              <td>
                <strong>{f.kind}</strong>
                {f.kind === 'latency' && <span class="muted"> +{f.latency_ms} ms</span>}
                {f.kind !== 'latency' && (
                  <span class="muted"> Retry-After {f.retry_after_seconds ?? 1} s</span>
                )}
              </td>
              <td>{f.ad_account_id ?? 'any'}</td>
              <td>{f.token_id ?? 'any'}</td>
              <td>
                {f.count !== undefined && f.count !== null
                  ? `next ${f.count} requests (${f.remaining ?? 0} left)`
                  : `${Math.round((f.fraction ?? 0) * 100)}% of requests`}
              </td>
              <td class="n">{f.matched}</td>
              <td>{dateTimeOf(f.created_at).slice(0, 19)}</td>
              <td>
                <button type="button" class="link danger" onClick={() => remove(f.id)}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {faults?.length === 0 && <p class="muted empty">No faults: every request is answered normally.</p>}
      <h2>Add a fault</h2>
      <form class="filters fault-form" onSubmit={add}>
        <label>
          <span>Kind</span>
          <select
            name="kind"
            value={kind}
            onChange={(e) => setKind((e.currentTarget as HTMLSelectElement).value as FaultKind)}
          >
            <option value="rate_limited">429 rate limited</option>
            <option value="unavailable">503 unavailable</option>
            <option value="latency">added latency</option>
          </select>
        </label>
        <label>
          <span>Ad account</span>
          <input name="ad_account_id" placeholder="any" />
        </label>
        <label>
          <span>Token id</span>
          <input name="token_id" placeholder="any" />
        </label>
        <label>
          <span>Applies to</span>
          <select name="mode">
            <option value="count">the next N requests</option>
            <option value="fraction">a fraction of requests</option>
          </select>
        </label>
        <label>
          <span>N or fraction</span>
          <input name="amount" value="1" required />
        </label>
        {kind === 'latency' ? (
          <label>
            <span>Latency (ms)</span>
            <input name="latency_ms" value="1000" required />
          </label>
        ) : (
          <label>
            <span>Retry-After (s)</span>
            <input name="retry_after_seconds" value="1" />
          </label>
        )}
        <button type="submit">Add fault</button>
      </form>
    </section>
  );
}
