-- The one table of both references (pg-reference.mjs, sqlite-reference.mjs; issue 37), the same text on
-- PostgreSQL and SQLite: an event is stored once per (ad account, event_name, event_id), the primary key that
-- ON CONFLICT DO NOTHING meets for a repeat, with one index on the time it was received (ms), the index a
-- 48 h window or a retention job would read. The event is kept as the JSON text of its accepted object.
CREATE TABLE IF NOT EXISTS events (
  ad_account_id text NOT NULL,
  event_name text NOT NULL,
  event_id text NOT NULL,
  event_time bigint NOT NULL,
  received_at bigint NOT NULL,
  event text NOT NULL,
  PRIMARY KEY (ad_account_id, event_name, event_id)
);
CREATE INDEX IF NOT EXISTS events_by_time ON events (received_at);
