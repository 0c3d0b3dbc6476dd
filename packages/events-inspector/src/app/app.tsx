import { useEffect, useState } from 'preact/hooks';
import { describeError } from './api/client.js';
import { parseHash, type Route } from './lib/route.js';
import { EventsPage } from './pages/events.js';
import { FaultsPage } from './pages/faults.js';
import { Login } from './pages/login.js';
import { ReportPage } from './pages/report.js';
import { RequestDetailPage } from './pages/request-detail.js';
import { RequestsPage } from './pages/requests.js';
import { probeSession, SessionContext, signOut } from './session.js';

type Auth = 'unknown' | 'in' | 'out';

function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseHash(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

export function App() {
  const [auth, setAuth] = useState<Auth>('unknown');
  const [fatal, setFatal] = useState<string | null>(null);
  const route = useRoute();

  useEffect(() => {
    probeSession()
      .then((ok) => setAuth(ok ? 'in' : 'out'))
      .catch((e) => setFatal(describeError(e)));
  }, []);

  if (fatal)
    return (
      <main class="login">
        <p class="error">{fatal}</p>
      </main>
    );
  if (auth === 'unknown')
    return (
      <main class="login">
        <p class="muted">Loading…</p>
      </main>
    );
  if (auth === 'out') return <Login onSignedIn={() => setAuth('in')} />;

  const logout = async () => {
    await signOut().catch(() => undefined);
    setAuth('out');
  };
  const nav: [Route['view'], string, string][] = [
    ['requests', '#/requests', 'Requests'],
    ['events', '#/events', 'Stored events'],
    ['report', '#/reports/', 'Reports'],
    ['faults', '#/faults', 'Faults'],
  ];
  const current = route.view === 'request' ? 'requests' : route.view;
  return (
    <SessionContext.Provider value={{ expired: () => setAuth('out') }}>
      <header class="top">
        <strong class="brand">Events inspector</strong>
        <nav>
          {nav.map(([view, href, label]) => (
            <a key={view} href={href} class={current === view ? 'active' : ''}>
              {label}
            </a>
          ))}
        </nav>
        <button type="button" class="link" onClick={logout}>
          Sign out
        </button>
      </header>
      <main>
        {route.view === 'requests' && <RequestsPage query={route.query} />}
        {route.view === 'request' && <RequestDetailPage id={route.id} />}
        {route.view === 'events' && <EventsPage query={route.query} />}
        {route.view === 'report' && <ReportPage account={route.account} />}
        {route.view === 'faults' && <FaultsPage />}
      </main>
    </SessionContext.Provider>
  );
}
