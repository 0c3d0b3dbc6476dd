import type { EventNameRule } from '../ir/types.js';
import { block, quote } from '../kit/code.js';
import { link } from '../kit/md.js';
import { noParams, type ValueKind } from './kind.js';

/** A standard event name, or a custom one registered for the ad account; stored as registered. */
export const eventName: ValueKind<EventNameRule> = {
  place: 'field',
  codes: ['invalid_event_name'],
  parse: noParams({ kind: 'event-name', severity: 'failed' }),
  mayChange: () => true,
  code: (_r, site, { scope }) =>
    block('', [
      `const e = ${scope.lib('event-name', 'checkEventName')}(o, p, i, ${quote(site.name)}, ${site.v}, c);`,
      `if (e === undefined) ${site.stop}`,
      ...block(`if (e !== ${site.v}) `, site.set('e')),
    ]),
  doc: () =>
    `a ${link('standard event name', 'event-names')} or a ${link('custom event name', 'custom-events')} registered for the ad account`,
  summary: () => 'A standard event name, or a custom name registered for the ad account (C10).',
};
