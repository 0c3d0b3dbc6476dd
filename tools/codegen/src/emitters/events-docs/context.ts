import type { FieldIR, IR, LimitIR, MessageIR, OperationIR, SchemaIR, TypeIR } from '../../ir/types.js';
import { dataAt, schemaAt, specAt } from '../../kit/spec-at.js';

/** One object of the event tree, with the path prefix its fields have in messages (`custom_data.`). */
export interface Section {
  schema: SchemaIR;
  prefix: string;
  /** The field that holds this object, when it is not the event itself. */
  via?: FieldIR;
}

/** Lookups shared by every page; built once per emit from the IR. */
export interface DocsContext {
  ir: IR;
  /** The events endpoint: the operation that supports test mode (seed 4.1, C1). */
  eventsOp: OperationIR;
  requestSchema: SchemaIR;
  /** The request field holding the events (`data`) and the event schema. */
  dataField: FieldIR;
  eventSchema: SchemaIR;
  /** Every operation: the events endpoint first, then the rate-limited API, then operations (C12). */
  operations: OperationIR[];
  /** The event and every object reachable from it, depth first, in field order. */
  sections: Section[];
  schema(name: string): SchemaIR;
  limit(key: string): LimitIR;
  message(code: string): MessageIR;
  enumValues(name: string): string[];
}

/** The object schema a type points at (directly or as array items). */
export function objectRef(t: TypeIR): string | undefined {
  if (t.kind === 'ref' && t.target === 'object') return t.name;
  if (t.kind === 'array') return objectRef(t.items);
  return undefined;
}

export function buildContext(ir: IR): DocsContext {
  const byName = new Map(ir.schemas.map((s) => [s.name, s]));
  const schema = (name: string): SchemaIR => {
    const s = byName.get(name);
    if (!s) throw new Error(`events-docs: no schema ${name}`);
    return s;
  };
  const testOps = ir.operations.filter((o) => o.testMode);
  if (testOps.length !== 1 || !testOps[0]!.requestBody)
    specAt(ir, 'paths').fail('events-operation-count', { count: testOps.length });
  const eventsOp = testOps[0]!;
  const requestSchema = schema(eventsOp.requestBody!);
  const dataField = requestSchema.fields.find((f) => f.type.kind === 'array' && objectRef(f.type));
  if (!dataField) return schemaAt(ir, requestSchema.name).fail('batch-events-field');
  const eventSchema = schema(objectRef(dataField.type)!);

  const sections: Section[] = [];
  const walk = (s: SchemaIR, prefix: string, via?: FieldIR) => {
    if (sections.some((x) => x.schema.name === s.name)) return;
    sections.push({ schema: s, prefix, ...(via ? { via } : {}) });
    for (const f of s.fields) {
      const ref = objectRef(f.type);
      if (ref) walk(schema(ref), `${prefix}${f.name}${f.type.kind === 'array' ? '[]' : ''}.`, f);
    }
  };
  walk(eventSchema, '');

  const rank = (o: OperationIR) => (o === eventsOp ? 0 : o.rateLimitCategory ? 1 : 2);
  const operations = [...ir.operations].sort((a, b) => rank(a) - rank(b));

  return {
    ir,
    eventsOp,
    operations,
    requestSchema,
    dataField,
    eventSchema,
    sections,
    schema,
    limit(key) {
      const l = ir.limits.find((x) => x.key === key);
      if (!l)
        return dataAt(ir, 'limits', 'limits').fail('needed-by-emitter', {
          emitter: 'events-docs',
          what: 'the limit',
          name: key,
        });
      return l;
    },
    message(code) {
      const m = ir.messages.find((x) => x.code === code);
      if (!m)
        return dataAt(ir, 'messages', 'messages').fail('needed-by-emitter', {
          emitter: 'events-docs',
          what: 'the message',
          name: code,
        });
      return m;
    },
    enumValues(name) {
      const e = ir.enums.find((x) => x.name === name);
      if (!e)
        return specAt(ir, 'components.schemas').fail('needed-by-emitter', {
          emitter: 'events-docs',
          what: 'the enum',
          name,
        });
      return e.values;
    },
  };
}
