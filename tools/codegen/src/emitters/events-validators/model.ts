import type { FieldIR, IR, RuleIR, SchemaIR } from '../../ir/types.js';
import { refName, schemaByName } from '../../kit/lookup.js';
import { schemaAt } from '../../kit/spec-at.js';
import { Reader } from '../../load/reader.js';

export type DedupRule = Extract<RuleIR, { kind: 'dedup' }>;

/** What the validators emitter needs of the IR: the batch request, its event schema and what it reaches. */
export interface ValidatorModel {
  ir: IR;
  /** The batch request body: the schema carrying the dedup rule (C6), such as ConversionEventsRequest. */
  request: SchemaIR;
  /** Its array of events (`data`). */
  batchField: FieldIR;
  dedup: DedupRule;
  /** The event schema (ConversionEvent). */
  event: SchemaIR;
  /** The field of the event holding its time (the one with the unix-seconds rule), named in C6 warnings. */
  timeField: string;
  /** Every object schema reachable from the event, the event first, then by name. */
  schemas: SchemaIR[];
}

export function validatorModel(ir: IR): ValidatorModel {
  const requests = ir.schemas.filter((s) => s.rules.some((r) => r.kind === 'dedup'));
  if (requests.length !== 1)
    new Reader(ir.files.openapi, undefined, 'components.schemas').fail('batch-request-count', {
      count: requests.length,
    });
  const request = requests[0]!;
  const dedup = request.rules.find((r): r is DedupRule => r.kind === 'dedup')!;
  const batchFields = request.fields.filter((f) => f.type.kind === 'array' && refName(f.type) !== undefined);
  if (batchFields.length !== 1) schemaAt(ir, request.name).fail('batch-events-field');
  const batchField = batchFields[0]!;
  const event = schemaByName(ir, refName(batchField.type)!);
  for (const k of dedup.key)
    if (!event.fields.some((f) => f.name === k))
      throw new Error(`events-validators: dedup key ${k} is not a field of ${event.name}`);
  const times = event.fields.filter((f) => f.rules.some((r) => r.kind === 'unix-seconds'));
  if (times.length !== 1) schemaAt(ir, event.name).fail('event-time-field', { count: times.length });

  const seen = new Set<string>([event.name]);
  const queue = [event];
  while (queue.length) {
    const s = queue.shift()!;
    for (const f of s.fields) {
      const n = refName(f.type);
      if (n && !seen.has(n)) {
        seen.add(n);
        queue.push(schemaByName(ir, n));
      }
    }
  }
  const others = [...seen].filter((n) => n !== event.name).sort();
  // The masks of a generated check hold one bit per field of its object (fieldBit).
  for (const n of seen) {
    const count = schemaByName(ir, n).fields.length;
    if (count > 31) schemaAt(ir, n).fail('too-many-fields', { count });
  }
  return {
    ir,
    request,
    batchField,
    dedup,
    event,
    timeField: times[0]!.name,
    schemas: [event, ...others.map((n) => schemaByName(ir, n))],
  };
}
