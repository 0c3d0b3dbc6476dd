// The generated checks of every body and query the spec declares besides the events batch (C1, C2 row 400):
// each row sends one request to the real server and compares the whole answer.
import { LIMITS } from '@org/events-types';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { A, T } from './support/fixtures.js';
import { type Harness, startHarness } from './support/server.js';

/** From the spec, so editing the limit there keeps this test true (issue 36). */
const ID_MAX = LIMITS.event_id_max_length.value;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const invalid = (...details: { path: string; problem: string }[]) => ({
  code: 4196,
  message: 'The request was invalid.',
  details,
});

const types = `/v5/ad_accounts/${A}/custom_event_types`;

interface Row {
  name: string;
  method: string;
  path: string;
  token: string;
  body?: unknown;
  want: { path: string; problem: string }[];
}

const rows: Row[] = [
  // CustomEventTypeCreateRequest
  {
    name: 'create: the body is not an object',
    method: 'POST',
    path: types,
    token: T.oauthStd,
    body: [1],
    want: [{ path: 'body', problem: 'must be a JSON object holding name, mapped_event_name; received [1]' }],
  },
  {
    name: 'create: both fields missing',
    method: 'POST',
    path: types,
    token: T.oauthStd,
    body: {},
    want: [
      {
        path: 'name',
        problem: 'is missing; send a name of letters, digits and underscore, such as newsletter_signup',
      },
      {
        path: 'mapped_event_name',
        problem: 'is missing; send a standard event name (seed 2.2) such as checkout or lead',
      },
    ],
  },
  {
    name: 'create: unknown key, bad pattern, unknown mapped name',
    method: 'POST',
    path: types,
    token: T.oauthStd,
    body: { name: 'has space', mapped_event_name: 'nope', extra: 1 },
    want: [
      {
        path: 'extra',
        problem: 'is not a field of the request body; only name, mapped_event_name is accepted',
      },
      {
        path: 'name',
        problem:
          'must be a name of letters, digits and underscore, such as newsletter_signup; received "has space"',
      },
      {
        path: 'mapped_event_name',
        problem: 'must be a standard event name (seed 2.2) such as checkout or lead; received "nope"',
      },
    ],
  },
  {
    name: 'create: too long, and not a string',
    method: 'POST',
    path: types,
    token: T.oauthStd,
    body: { name: 'a'.repeat(101), mapped_event_name: 5 },
    want: [
      { path: 'name', problem: 'is 101 characters long; the most accepted is 100' },
      {
        path: 'mapped_event_name',
        problem: 'must be a standard event name (seed 2.2) such as checkout or lead; received 5',
      },
    ],
  },
  {
    name: 'create: a standard name needs no registration',
    method: 'POST',
    path: types,
    token: T.oauthStd,
    body: { name: 'Checkout', mapped_event_name: 'checkout' },
    want: [
      {
        path: 'name',
        problem:
          '"Checkout" is a standard event name; send it as event_name as it is, no registration needed',
      },
    ],
  },
  // TagEventsRequest
  {
    name: 'tag events: data missing and an unknown key',
    method: 'POST',
    path: '/admin/tag_events',
    token: T.admin,
    body: { events: [] },
    want: [
      { path: 'events', problem: 'is not a field of the request body; only data is accepted' },
      { path: 'data', problem: 'is missing; send the events as data: [ ... ]' },
    ],
  },
  {
    name: 'tag events: data empty',
    method: 'POST',
    path: '/admin/tag_events',
    token: T.admin,
    body: { data: [] },
    want: [{ path: 'data', problem: 'must hold at least 1 event' }],
  },
  {
    name: 'tag events: every rule of an item, with its path',
    method: 'POST',
    path: '/admin/tag_events',
    token: T.admin,
    body: {
      data: [
        7,
        {
          ad_account_id: 'x',
          event_name: '',
          event_id: 'e'.repeat(ID_MAX + 1),
          event_time: 1e11,
          more: true,
        },
        { ad_account_id: '42', event_name: 'nope', event_id: 'e1', event_time: -1 },
        { ad_account_id: A, event_name: 'nope', event_id: 'e2', event_time: 1 },
      ],
    },
    want: [
      {
        path: 'data[0]',
        problem: 'must be an object with ad_account_id, event_name, event_id and event_time; received 7',
      },
      {
        path: 'data[1].more',
        problem:
          'is not a field of TagEvent; only ad_account_id, event_name, event_id, event_time are accepted',
      },
      {
        path: 'data[1].ad_account_id',
        problem: 'must be the id of a configured ad account (1 to 18 digits); received "x"',
      },
      {
        path: 'data[1].event_name',
        problem:
          'must not be empty; send a standard event name such as checkout or Checkout, or a custom event type of the ad account',
      },
      {
        path: 'data[1].event_id',
        problem: `is ${ID_MAX + 1} characters long; the most accepted is ${ID_MAX}`,
      },
      {
        path: 'data[1].event_time',
        problem: 'must be an integer from 0 to 99999999999; received 100000000000',
      },
      { path: 'data[2].event_time', problem: 'must be an integer from 0 to 99999999999; received -1' },
      {
        path: 'data[2].ad_account_id',
        problem: 'must be the id of a configured ad account; received "42"',
      },
      {
        path: 'data[3].event_name',
        problem:
          'must be a standard event name (API or tag form) or a custom event type of the ad account; received "nope"',
      },
    ],
  },
  // Query of GET /admin/events
  {
    name: 'admin events: integers out of range, not integers, repeated',
    method: 'GET',
    path: '/admin/events?since=-1&until=soon&limit=0&event_id=a&event_id=b',
    token: T.admin,
    want: [
      { path: 'query.event_id', problem: 'must be given once; received 2 values' },
      { path: 'query.since', problem: 'must be an integer from 0 to 99999999999; received "-1"' },
      { path: 'query.until', problem: 'must be an integer from 0 to 99999999999; received "soon"' },
      { path: 'query.limit', problem: 'must be an integer from 1 to 1000; received "0"' },
    ],
  },
  {
    name: 'admin events: a cursor of another server',
    method: 'GET',
    path: '/admin/events?cursor=zzz',
    token: T.admin,
    want: [
      {
        path: 'query.cursor',
        problem: 'is not a cursor of this server; send next_cursor of the previous page',
      },
    ],
  },
  // Query of the events endpoint: test and its alias is_test
  {
    name: 'events: a test value other than true or false',
    method: 'POST',
    path: `/v5/ad_accounts/${A}/events?test=yes&is_test=1`,
    token: T.convA,
    body: { data: [] },
    want: [
      { path: 'query.test', problem: 'must be true or false; received "yes"' },
      { path: 'query.is_test', problem: 'must be true or false; received "1"' },
    ],
  },
  {
    name: 'events: test and is_test disagree',
    method: 'POST',
    path: `/v5/ad_accounts/${A}/events?test=true&is_test=false`,
    token: T.convA,
    body: { data: [] },
    want: [{ path: 'query.is_test', problem: 'disagrees with test; send one of them' }],
  },
];

describe('generated request checks (C2 row 400)', () => {
  test.each(rows)('$name', async (row) => {
    const r = await h.call(row.method, row.path, {
      token: row.token,
      ...(row.body !== undefined ? { body: row.body } : {}),
    });
    expect({ status: r.status, body: r.body }).toEqual({ status: 400, body: invalid(...row.want) });
  });

  test('a well-formed body and query pass: defaults apply, the alias stands for test', async () => {
    const ok = await h.call('POST', '/admin/tag_events', {
      token: T.admin,
      body: { data: [{ ad_account_id: A, event_name: 'Checkout', event_id: 'ok-1', event_time: 1 }] },
    });
    expect({ status: ok.status, body: ok.body }).toEqual({ status: 200, body: { recorded: 1 } });
    const page = await h.call('GET', '/admin/events', { token: T.admin });
    expect(page.status).toBe(200);
    const agree = await h.call('POST', `/v5/ad_accounts/${A}/events?test=true&is_test=true`, {
      token: T.convA,
      body: { data: [] },
    });
    // Past the query checks, the body's own row answers.
    expect(agree.body.details[0]).toEqual({ path: 'data', problem: 'must hold at least 1 event' });
  });
});
