// How times and counts read on the page. Times are shown in the viewer's time zone.

export function timeOf(unixMs: number): string {
  const d = new Date(unixMs);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

export function dateTimeOf(unixMs: number): string {
  const d = new Date(unixMs);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${timeOf(unixMs)}`;
}

export function percent(x: number): string {
  return `${Math.round(x * 100)}%`;
}
