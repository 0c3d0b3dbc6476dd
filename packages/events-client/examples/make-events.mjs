// Prints N conversion events dated now as NDJSON (default 10; every 10th has a mistake to show a failure):
//   node examples/make-events.mjs 5000 > events.ndjson
const n = Number(process.argv[2] ?? 10);
const now = Math.floor(Date.now() / 1000);
for (let i = 0; i < n; i++)
  process.stdout.write(
    `${JSON.stringify({
      event_name: i % 10 === 9 ? 'subscription' : 'checkout',
      action_source: 'web',
      event_time: now,
      event_id: `example-${now}-${i}`,
      event_source_url: 'https://shop.example.com/checkout/thank-you',
      user_data: {
        em: ['6a6c26195c3682faa816966af789717c3bfa834eee6c599d667d2b3429c27cfd'],
        client_ip_address: '203.0.113.24',
        client_user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36',
      },
      custom_data: { currency: 'USD', value: '42.00', order_id: `order-${i}` },
    })}\n`,
  );
