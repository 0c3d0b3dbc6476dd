import type { StatementStructures } from 'ts-morph';
import { StructureKind } from 'ts-morph';
import type { EmittedFile, Emitter } from '../../emit/emitter.js';
import { dataAt, specAt } from '../../emit/spec-at.js';
import { constStatement, tsFile } from '../../emit/ts-file.js';
import type { IR, OperationIR } from '../../ir/types.js';

/**
 * @org/events-client: what the sender needs to know of the spec (C55): the operations an integrator calls
 * (events and custom event types, not operations/admin), the batch limits it splits by, the header names it
 * reads, the statuses it may retry (those whose response declares Retry-After) and the request errors it
 * turns into typed errors. The runtime in packages/events-client/src reads nothing else of the spec.
 */
const DIR = 'packages/events-client/src/generated';

type Obj = Record<string, unknown>;

/** Tags of the operations a client calls; operations/admin endpoints belong to operators. */
const CLIENT_TAGS = new Set(['conversion_events', 'custom_event_types']);

function components(ir: IR, kind: string): Record<string, Obj> {
  return (((ir.openapi.components as Obj)[kind] ?? {}) as Record<string, Obj>) ?? {};
}

function deref(ir: IR, o: Obj, kind: string): Obj {
  const ref = o.$ref;
  if (typeof ref !== 'string') return o;
  const name = ref.split('/').pop()!;
  const target = components(ir, kind)[name];
  if (!target) return specAt(ir, 'components', kind).fail('unresolved-ref', { ref });
  return target;
}

/** The name of the component header that holds `Retry-After`. */
function retryAfterName(ir: IR): string {
  const found = Object.values(components(ir, 'headers')).find(
    (h) => String(h['x-name']).toLowerCase() === ir.rateLimits.headers.retryAfter?.toLowerCase(),
  );
  if (!found) return specAt(ir, 'components.headers').fail('retry-after-header');
  return String(found['x-name']);
}

/** Statuses of an operation whose response declares Retry-After: the ones worth retrying (C55). */
function retryableStatuses(ir: IR, op: OperationIR): number[] {
  const item = (ir.openapi.paths as Record<string, Obj>)[op.path]?.[op.method] as Obj | undefined;
  const responses = (item?.responses ?? {}) as Record<string, Obj>;
  const name = retryAfterName(ir).toLowerCase();
  return Object.entries(responses)
    .filter(([status]) => /^\d{3}$/.test(status))
    .filter(([, r]) => {
      const headers = (deref(ir, r, 'responses').headers ?? {}) as Record<string, Obj>;
      return Object.keys(headers).some((h) => h.toLowerCase() === name);
    })
    .map(([status]) => Number(status))
    .sort((a, b) => a - b);
}

function successStatus(ir: IR, op: OperationIR): number {
  const ok = op.responses.map((r) => Number(r.status)).filter((s) => s >= 200 && s < 300);
  if (ok.length !== 1)
    specAt(ir, 'paths', op.path, op.method, 'responses').fail('success-response-count', { count: ok.length });
  return ok[0]!;
}

function operation(ir: IR, op: OperationIR) {
  return {
    method: op.method.toUpperCase(),
    path: op.path,
    pathParams: op.parameters.filter((p) => p.in === 'path').map((p) => p.name),
    testParam: op.testMode ? (op.parameters.find((p) => p.in === 'query' && !p.aliasOf)?.name ?? null) : null,
    hasBody: op.requestBody !== undefined,
    success: successStatus(ir, op),
    retryable: retryableStatuses(ir, op),
    security: op.security.map((s) => s.scheme),
  };
}

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
    return [apiFile(ir)];
  },
};
