// Properties of the generated request checks over open inputs (C30): any JSON value is answered with a typed
// copy or with keyed problems, never an exception; a copy holds only what the rules admit.
import { LIMITS } from '@org/events-types';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { RequestProblems } from '../src/core/request-error.js';
import {
  checkAdminEventsListQuery,
  checkCustomEventTypeCreateRequest,
  checkEventsCreateQuery,
  checkTagEventsRequest,
  OBJECT_CHECKS,
} from '../src/generated/request-checks.gen.js';

const TAG_KEYS = OBJECT_CHECKS.TagEvent!.fields.map((f) => f.name);

/** Tag events near the rules: the right keys with values of every kind, and now and then an extra key. */
const tagEvent = fc.record(
  {
    ad_account_id: fc.oneof(fc.stringMatching(/^\d{1,20}$/), fc.jsonValue()),
    event_name: fc.oneof(fc.constantFrom('checkout', 'Checkout', '', 'lead'), fc.jsonValue()),
    event_id: fc.oneof(fc.string({ maxLength: 300 }), fc.jsonValue()),
    event_time: fc.oneof(fc.integer({ min: -10, max: 2e11 }), fc.double(), fc.jsonValue()),
    extra: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

describe('generated checks on any input', () => {
  test('TagEventsRequest: a copy of admitted items, or problems with paths inside the body', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.record({ data: fc.array(fc.oneof(tagEvent, fc.jsonValue()), { maxLength: 8 }) }),
        ),
        (body) => {
          const p = new RequestProblems();
          const out = checkTagEventsRequest(body, p);
          expect(p.details.length).toBeLessThanOrEqual(LIMITS.messages_max_per_event.value);
          const topKeys = body !== null && typeof body === 'object' ? Object.keys(body) : [];
          for (const d of p.details)
            expect(
              d.path === 'body' || /^data(\[\d+\](\..*)?)?$/.test(d.path) || topKeys.includes(d.path),
            ).toBe(true);
          if (out === undefined) {
            expect(p.any).toBe(true);
            return;
          }
          out.data.forEach((e, i) => {
            if (e === undefined) {
              // Named, unless the details stopped at their cap (limits.messages_max_per_event) before it.
              if (p.details.length < LIMITS.messages_max_per_event.value)
                expect(p.details.some((d) => d.path.startsWith(`data[${i}]`))).toBe(true);
              return;
            }
            expect(Object.keys(e).every((k) => TAG_KEYS.includes(k))).toBe(true);
            expect(e.ad_account_id).toMatch(/^\d{1,18}$/);
            expect(e.event_name.length).toBeGreaterThan(0);
            expect(e.event_id.length).toBeGreaterThanOrEqual(1);
            expect(e.event_id.length).toBeLessThanOrEqual(256);
            expect(Number.isSafeInteger(e.event_time) && e.event_time >= 0 && e.event_time < 1e11).toBe(true);
          });
        },
      ),
    );
  });

  test('CustomEventTypeCreateRequest: undefined exactly when a problem is added', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.record(
            {
              name: fc.oneof(fc.stringMatching(/^\w{0,110}$/), fc.jsonValue()),
              mapped_event_name: fc.jsonValue(),
            },
            { requiredKeys: [] },
          ),
        ),
        (body) => {
          const p = new RequestProblems();
          const out = checkCustomEventTypeCreateRequest(body, p);
          expect(out === undefined).toBe(p.any);
          if (out) expect(out.name).toMatch(/^[A-Za-z0-9_]{1,100}$/);
        },
      ),
    );
  });

  test('queries: values are converted, bounded and defaulted, or named by query path', () => {
    const value = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
    );
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom('since', 'until', 'limit', 'cursor', 'event_id', 'test', 'is_test'),
          value,
        ),
        (query) => {
          const p = new RequestProblems();
          const q = checkAdminEventsListQuery(query, p);
          for (const d of p.details) expect(d.path).toMatch(/^query\.\w+$/);
          if (!p.any) {
            expect(q.limit).toBeGreaterThanOrEqual(1);
            expect(q.limit).toBeLessThanOrEqual(1000);
            if (q.since !== undefined) expect(Number.isSafeInteger(q.since)).toBe(true);
          }
          const t = new RequestProblems();
          const e = checkEventsCreateQuery(query, t);
          if (!t.any) expect([undefined, 'true', 'false']).toContain(e.test);
        },
      ),
    );
  });
});
