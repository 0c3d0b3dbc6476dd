import type { PositiveForEventsRule, Severity } from '../ir/types.js';
import { block, quote } from '../kit/code.js';
import { eventNameField } from '../kit/lookup.js';
import { code, words } from '../kit/md.js';
import { schemaAt } from '../kit/spec-at.js';
import type { ObjectKind } from './kind.js';

/** The code of each outcome: a zero on the group's events, and on another event when it warns. */
const CODES = { failed: 'zero_value_on_event', warning: 'zero_value_kept' } as const;

export const positiveForEvents: ObjectKind<PositiveForEventsRule> = {
  place: 'object',
  codes: Object.values(CODES),
  parse: {
    params: ['in', 'field', 'eventNames', 'elsewhere'],
    read(r, ctx) {
      const group = r.at('eventNames').string();
      const eventNames = ctx.groups[group];
      if (!eventNames) return r.at('eventNames').fail('unknown-event-group', { group });
      return {
        kind: 'positive-for-events',
        severity: 'failed',
        in: r.at('in').string(),
        field: r.at('field').string(),
        group,
        eventNames,
        elsewhere: r.at('elsewhere').present
          ? r.at('elsewhere').oneOf(['warning', 'accepted'] as const)
          : 'accepted',
      };
    },
  },
  names: (r) => [r.in],
  severities: (r): Severity[] => (r.elsewhere === 'warning' ? ['failed', 'warning'] : ['failed']),
  code(r, schema, { ir, scope }) {
    const nameField = eventNameField(schema);
    if (!nameField)
      return schemaAt(ir, schema.name, undefined, 'x-rules').fail('event-name-field-missing', {
        what: 'positive-for-events',
      });
    const inName = quote(r.in);
    const en = `t[${quote(nameField.name)}]`;
    const call = (c: string) =>
      `${scope.lib('positive-for-events', 'zeroOnEvent')}(o, p, i, ${inName}, ${quote(r.field)}, t[${inName}], ${en} as string, ${quote(c)});`;
    const group = block(`if (${r.eventNames.map((n) => `${en} === ${quote(n)}`).join(' || ')}) `, [
      call(CODES.failed),
    ]);
    if (r.elsewhere === 'accepted') return group;
    // `} else if (...) {`: every other event whose name is a string (any other type has failed already).
    const other = block(`} else if (typeof ${en} === 'string') `, [call(CODES.warning)]);
    return [...group.slice(0, -1), ...other];
  },
  doc: (r) =>
    `${code(`${r.in}.${r.field}`)} must be greater than 0 on ${words(r.eventNames.map(code), 'or')} events (group ${code(r.group)}); ${
      r.elsewhere === 'warning'
        ? 'a zero on another event is processed with a warning (C120)'
        : 'zero is accepted on other events (C86)'
    }`,
  summary: () => undefined,
};
