import { readFileSync } from 'node:fs';
import pg from 'pg';

const c = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/ems_dbg' });
await c.connect();
const pid = (await c.query('select pg_backend_pid() p')).rows[0].p;
const cpu = () => {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};
const ev = JSON.stringify({
  event_name: 'checkout',
  action_source: 'web',
  event_time: 1772452800,
  event_id: 'x',
  user_data: {
    em: ['a'.repeat(64)],
    external_id: ['b'.repeat(64)],
    client_ip_address: '203.0.113.7',
    client_user_agent:
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  },
  custom_data: {
    currency: 'USD',
    value: '42.00',
    order_id: 'order-1',
    contents: [{ id: 'sku-1', item_price: '20.00', quantity: 1 }],
  },
});
const dupEvery = Number(process.env.DUPS ?? 0);
for (const size of (process.env.SIZES ?? '1,100,1000').split(',').map(Number)) {
  const calls = Math.max(5, Math.round(20000 / size / (size === 1 ? 1 : 1)));
  const n = Math.min(calls, size === 1 ? 2000 : calls);
  const t0 = cpu();
  const w0 = Date.now();
  await c.query(process.env.TX ? 'BEGIN' : 'SELECT 1');
  for (let k = 0; k < n; k++) {
    const ids = Array.from({ length: size }, (_, i) => `${process.pid}-${size}-${k}-${i}`);
    await c.query(
      'SELECT * FROM events_commit_batch($1, $2, $3, $4, $5::int[], $6::text[], $7::text[], $8::bigint[], $9::text[], $10::text, $11::text[], $12::text[])',
      [
        '549755885175',
        'r',
        Date.now(),
        Date.now() - 172800000,
        ids.map((_, i) => i),
        ids.map((_, i) => ['checkout', 'add_to_cart', 'page_visit'][i % 3]),
        ids,
        ids.map(() => 1772452800),
        ids.map(() => 'reporting,audiences'),
        ids.map(() => ev).join('\u001e'),
        [],
        [],
      ],
    );
  }
  await c.query(process.env.TX ? 'COMMIT' : 'SELECT 1');
  const used = cpu() - t0;
  console.log(
    `size ${size}: ${n} calls, backend CPU ${(used / n).toFixed(0)} ms×1000/call = ${((used * 1000) / (n * size)).toFixed(1)} µs/event; wall ${((Date.now() - w0) / n).toFixed(1)} ms/call`,
  );
}
await c.end();
