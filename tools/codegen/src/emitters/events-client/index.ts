import type { StatementStructures } from 'ts-morph';
import { StructureKind } from 'ts-morph';
import type { EmittedFile, Emitter } from '../../emit/emitter.js';
import { constStatement, tsFile } from '../../emit/ts-file.js';
import type { IR } from '../../ir/types.js';
import { dataAt } from '../../kit/spec-at.js';
import { adminFile } from './admin.js';
import { components, operation, retryAfterName } from './operations.js';

/**
 * @org/events-client: what the sender needs to know of the spec (C55): the operations an integrator calls
 * (events and custom event types), the batch limits it splits by, the header names it reads, the statuses it
 * may retry (those whose response declares Retry-After) and the request errors it turns into typed errors;
 * and in admin.gen.ts the admin API, typed, for operators and the inspector (C106). The runtime in
 * packages/events-client/src reads nothing else of the spec.
 */
const DIR = 'packages/events-client/src/generated';

/** Tags of the operations a sender calls; the admin API is emitted apart (admin.ts). */
const CLIENT_TAGS = new Set(['conversion_events', 'custom_event_types']);

function limit(ir: IR, key: string): number {
  const l = ir.limits.find((x) => x.key === key);
  if (!l)
    return dataAt(ir, 'limits', 'limits').fail('needed-by-emitter', {
      emitter: 'events-client',
      what: 'the limit',
      name: key,
    });
  return l.value;
}

function apiFile(ir: IR): EmittedFile {
  const ops = ir.operations
    .filter((op) => CLIENT_TAGS.has(op.tag))
    .sort((a, b) => (a.operationId < b.operationId ? -1 : 1));
  const h = ir.rateLimits.headers;
  const requestId = Object.values(components(ir, 'headers')).find((x) => x['x-every-response'] === 'all');
  const statements: (string | StatementStructures)[] = [
    constStatement(
      'CLIENT_OPERATIONS',
      Object.fromEntries(ops.map((op) => [op.operationId, operation(ir, op)])),
      'The operations a client calls, keyed by operationId: method, path template, path parameters, the test ' +
        'query parameter (C7), whether a JSON body is sent, the success status, the statuses whose response ' +
        'declares Retry-After (retried, C55) and the accepted security schemes.',
    ),
    constStatement(
      'BATCH_LIMITS',
      {
        maxEvents: limit(ir, 'batch_max_events'),
        minEvents: limit(ir, 'batch_min_events'),
        maxBodyBytes: limit(ir, 'body_max_bytes'),
      },
      'What one events request may hold (C1, C2): the client splits within these (C56).',
    ),
    constStatement(
      'RESPONSE_HEADERS',
      {
        requestId: String(requestId?.['x-name'] ?? 'x-request-id'),
        retryAfter: retryAfterName(ir),
        limit: h.limit,
        remaining: h.remaining,
        reset: h.reset,
      },
      'Header names the client reads: the request id, Retry-After and the x-ratelimit-* headers (C9).',
    ),
    constStatement(
      'REQUEST_ERRORS',
      Object.fromEntries(
        ir.requestErrors.map((e) => [
          e.key,
          { status: e.status, code: e.code, message: e.message, fix: e.fix },
        ]),
      ),
      'Request-level errors of C2 keyed by name (status, code, message, what to do): a response is matched ' +
        'to its key by status and code.',
    ),
    {
      kind: StructureKind.TypeAlias,
      name: 'ClientOperationId',
      isExported: true,
      type: 'keyof typeof CLIENT_OPERATIONS',
      docs: ['An operation a client calls.'],
    },
    {
      kind: StructureKind.TypeAlias,
      name: 'RequestErrorKey',
      isExported: true,
      type: 'keyof typeof REQUEST_ERRORS',
      docs: ['The name of a request-level error (C2).'],
    },
  ];
  return { path: `${DIR}/api.gen.ts`, content: tsFile(`${DIR}/api.gen.ts`, statements) };
}

export const eventsClientEmitter: Emitter = {
  name: 'events-client',
  owns: [DIR],
  emit(ir) {
    return [apiFile(ir), adminFile(ir, DIR)];
  },
};
