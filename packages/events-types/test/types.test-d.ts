import { describe, expectTypeOf, it } from 'vitest';
import type {
  ActionSource,
  BatchResponse,
  ConversionEvent,
  ConversionEventsRequest,
  EventResult,
  StandardEventName,
  UserData,
} from '../src/index.js';

// Type-level checks of the generated types (vitest --typecheck): what integrators get at compile time.
const wellFormed = {
  event_name: 'checkout',
  action_source: 'web',
  event_time: 1763700000,
  event_id: 'order-1234',
  event_source_url: 'https://shop.example.com/thanks',
  user_data: {
    em: ['6a6c26195c3682faa816966af789717c3bfa834eee6c599d667d2b3429c27cfd'],
    client_ip_address: '203.0.113.24',
    client_user_agent:
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Version/17.5 Safari/605.1.15',
  },
  custom_data: {
    currency: 'USD',
    value: '42.00',
    contents: [{ id: 'sku-1', item_price: '42.00', quantity: 1 }],
  },
} satisfies ConversionEvent;

describe('ConversionEvent', () => {
  it('accepts a well-formed event', () => {
    expectTypeOf(wellFormed).toExtend<ConversionEvent>();
    expectTypeOf<ConversionEventsRequest>().toHaveProperty('data').toEqualTypeOf<ConversionEvent[]>();
  });

  it('rejects an unknown event name (seed 2.2, C4)', () => {
    // @ts-expect-error 'purchase' is not a standard event name
    const bad: ConversionEvent = { ...wellFormed, event_name: 'purchase' };
    void bad;
    expectTypeOf<'purchase'>().not.toExtend<ConversionEvent['event_name']>();
    expectTypeOf<ConversionEvent['event_name']>().toEqualTypeOf<StandardEventName>();
  });

  it('accepts registered custom names through the type parameter (C10)', () => {
    const custom: ConversionEvent<'book_demo'> = { ...wellFormed, event_name: 'book_demo' };
    expectTypeOf(custom.event_name).toEqualTypeOf<StandardEventName | 'book_demo'>();
  });

  it('rejects a numeric value (C4: value is a decimal string)', () => {
    // @ts-expect-error value must be a string such as "42.00"
    const bad: ConversionEvent = { ...wellFormed, custom_data: { value: 42 } };
    void bad;
    expectTypeOf<NonNullable<ConversionEvent['custom_data']>['value']>().toEqualTypeOf<
      string | null | undefined
    >();
  });

  it('rejects a scalar em (C4: hashed fields are arrays)', () => {
    // @ts-expect-error em is an array of SHA-256 hex strings
    const bad: UserData = { em: '6a6c26195c3682faa816966af789717c3bfa834eee6c599d667d2b3429c27cfd' };
    void bad;
    expectTypeOf<UserData['em']>().toEqualTypeOf<string[] | undefined>();
  });

  it('rejects an action source outside the enum', () => {
    // @ts-expect-error 'app' is not an action source
    const bad: ActionSource = 'app';
    void bad;
  });
});

describe('BatchResponse', () => {
  it('has the seed 2.7 shape with nullable messages (C3)', () => {
    expectTypeOf<BatchResponse['events']>().toEqualTypeOf<EventResult[]>();
    expectTypeOf<EventResult['status']>().toEqualTypeOf<'processed' | 'failed'>();
    expectTypeOf<EventResult['error_message']>().toEqualTypeOf<string | null>();
  });
});
