// Hash routing: the server serves one index.html at /inspector/, and every view is a hash such as
// `#/requests?status=400`, `#/requests/<id>`, `#/events`, `#/reports/<ad account>`, `#/faults`.

export type Route =
  | { view: 'requests'; query: string }
  | { view: 'request'; id: string; query: string }
  | { view: 'events'; query: string }
  | { view: 'report'; account: string; query: string }
  | { view: 'faults'; query: string };

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, '');
  const qAt = raw.indexOf('?');
  const path = qAt < 0 ? raw : raw.slice(0, qAt);
  const query = qAt < 0 ? '' : raw.slice(qAt);
  const parts = path
    .split('/')
    .filter((p) => p !== '')
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return p;
      }
    });
  const [head, arg] = parts;
  if (head === 'requests' && arg) return { view: 'request', id: arg, query };
  if (head === 'events') return { view: 'events', query };
  if (head === 'reports') return { view: 'report', account: arg ?? '', query };
  if (head === 'faults') return { view: 'faults', query };
  return { view: 'requests', query };
}

export function hrefOf(route: Route): string {
  const enc = encodeURIComponent;
  switch (route.view) {
    case 'requests':
      return `#/requests${route.query}`;
    case 'request':
      return `#/requests/${enc(route.id)}${route.query}`;
    case 'events':
      return `#/events${route.query}`;
    case 'report':
      return `#/reports/${enc(route.account)}${route.query}`;
    case 'faults':
      return `#/faults${route.query}`;
  }
}
