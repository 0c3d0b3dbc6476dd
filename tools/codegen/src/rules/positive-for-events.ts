import { schemaAt } from '../emit/spec-at.js';
import { code, words } from '../emitters/events-docs/md.js';
import { block, quote } from '../emitters/events-validators/code.js';
import { eventNameField } from '../emitters/events-validators/model.js';
import type { ObjectKind } from './kind.js';

/** C86: `in.field`, a decimal string, must be greater than 0 on the events of a group (zero is fine elsewhere). */
export interface PositiveForEventsRule {
  kind: 'positive-for-events';
  severity: 'failed';
  in: string;
  field: string;
  group: string;
  eventNames: string[];
}

export const positiveForEvents: ObjectKind<PositiveForEventsRule> = {
  place: 'object',
  codes: ['zero_value_on_event'],
  parse: {
    params: ['in', 'field', 'eventNames'],
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
      };
    },
  },
  names: (r) => [r.in],
  code(r, schema, { ir, scope }) {
    const nameField = eventNameField(schema);
    if (!nameField)
      return schemaAt(ir, schema.name, undefined, 'x-rules').fail('event-name-field-missing', {
        what: 'positive-for-events',
      });
    const inName = quote(r.in);
    const en = `t[${quote(nameField.name)}]`;
    return block(`if (${r.eventNames.map((n) => `${en} === ${quote(n)}`).join(' || ')}) `, [
      `${scope.lib('positive-for-events', 'zeroOnEvent')}(o, p, i, ${inName}, ${quote(r.field)}, t[${inName}], ${en} as string);`,
    ]);
  },
  doc: (r) =>
    `${code(`${r.in}.${r.field}`)} must be greater than 0 on ${words(r.eventNames.map(code), 'or')} events (group ${code(r.group)}); zero is accepted on other events (C86)`,
};
