import { useEffect, useState } from 'preact/hooks';
import { admin, describeError } from '../api/client.js';
import type { AccountReport } from '../api/types.js';
import { TimelineChart } from '../components/timeline-chart.js';
import { useApiCall } from '../session.js';

/** One ad account's report (GET /admin/reports/{id}): stored per event name, failures, last 48 hours. */
export function ReportPage({ account }: { account: string }) {
  const [report, setReport] = useState<AccountReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [recent, setRecent] = useState<string[]>([]);
  const run = useApiCall();
  // The ad accounts of recent requests, offered as links (the admin API has no list of accounts).
  useEffect(() => {
    run(() => admin.call('admin/requests/list', { query: { limit: 200 } })).then((r) => {
      if (r.ok) setRecent([...new Set(r.value.items.map((i) => i.ad_account_id))].sort());
    });
  }, []);
  useEffect(() => {
    setReport(null);
    setError(null);
    if (!account) return;
    run(() => admin.call('admin/reports/get', { path: { ad_account_id: account } })).then((r) =>
      r.ok ? setReport(r.value) : setError(describeError(r.error)),
    );
  }, [account]);

  const pick = (e: Event) => {
    e.preventDefault();
    const id = String(new FormData(e.currentTarget as HTMLFormElement).get('account') ?? '').trim();
    location.hash = `#/reports/${encodeURIComponent(id)}`;
  };
  return (
    <section>
      <h1>Report</h1>
      <form class="filters" onSubmit={pick} key={account}>
        <label>
          <span>Ad account</span>
          <input name="account" value={account} placeholder="ad account id" required />
        </label>
        <button type="submit">Show</button>
        {recent.length > 0 && (
          <span class="recent">
            Recent:{' '}
            {recent.map((a) => (
              <a key={a} href={`#/reports/${encodeURIComponent(a)}`}>
                {a}
              </a>
            ))}
          </span>
        )}
      </form>
      {error && <p class="error">{error}</p>}
      {report && (
        <>
          <h2>Last 48 hours</h2>
          {report.timeline ? (
            <TimelineChart timeline={report.timeline} />
          ) : (
            <p class="muted">This server does not report a timeline.</p>
          )}
          <div class="columns">
            <div>
              <h2>Stored events per name</h2>
              <table class="compact">
                <thead>
                  <tr>
                    <th>Event name</th>
                    <th class="n">Processed</th>
                    <th class="n">Duplicates</th>
                  </tr>
                </thead>
                <tbody>
                  {report.stored.map((s) => (
                    <tr key={s.event_name}>
                      <td>
                        <a
                          href={`#/events?ad_account_id=${encodeURIComponent(account)}&event_name=${encodeURIComponent(s.event_name)}`}
                        >
                          {s.event_name}
                        </a>
                      </td>
                      <td class="n">{s.processed}</td>
                      <td class="n">{s.duplicates}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <div>
              <h2>Failed events</h2>
              <table class="compact">
                <thead>
                  <tr>
                    <th>Event name</th>
                    <th>Code</th>
                    <th class="n">Count</th>
                  </tr>
                </thead>
                <tbody>
                  {report.failed.map((f) => (
                    <tr key={`${f.event_name}/${f.code}`}>
                      <td>{f.event_name}</td>
                      <td>
                        <code>{f.code}</code>
                      </td>
                      <td class="n">{f.count}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </div>
        </>
      )}
    </section>
  );
}
