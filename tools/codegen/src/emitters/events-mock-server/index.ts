import { type StatementStructures, StructureKind } from 'ts-morph';
import type { EmittedFile, Emitter } from '../../emit/emitter.js';
import { constStatement, tsFile } from '../../emit/ts-file.js';
import type { IR, OperationIR } from '../../ir/types.js';
import { dataAt, specAt } from '../../kit/spec-at.js';
import { checksFile } from './checks-file.js';

/**
 * Server tables of @org/events-mock-server that the generic constants of @org/events-types do not give in
 * the shape a server needs: a route table keyed by operationId (fastify URL, security alternatives,
 * rate-limit category, path and query patterns) and the request problems of C2 joined with their outcome
 * (status, code, message) and typed template parameters. Everything else the server reads from
 * @org/events-types directly.
 */
const DIR = 'packages/events-mock-server/src/generated';

const constant = constStatement;

/** `/v5/ad_accounts/{ad_account_id}/events` -> `/v5/ad_accounts/:ad_account_id/events` (fastify syntax). */
function fastifyUrl(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

function route(op: OperationIR) {
  const params = (where: 'path' | 'query') =>
    Object.fromEntries(
      op.parameters
        .filter((p) => p.in === where)
        .map((p) => [
          p.name,
          {
            required: p.required,
            pattern: p.pattern ?? null,
            enum: p.enum ?? null,
            minimum: p.minimum ?? null,
            maximum: p.maximum ?? null,
            default: p.default ?? null,
            maxLength: p.maxLength ?? null,
          },
        ]),
    );
  return {
    method: op.method.toUpperCase(),
    url: fastifyUrl(op.path),
    path: op.path,
    tag: op.tag,
    security: op.security,
    rateLimitCategory: op.rateLimitCategory ?? null,
    testMode: op.testMode,
    faults: op.faults,
    loginThrottle: op.loginThrottle,
    requestBody: op.requestBody ?? null,
    pathParams: params('path'),
    queryParams: params('query'),
    statuses: op.responses.filter((r) => /^\d{3}$/.test(r.status)).map((r) => Number(r.status)),
  };
}

type Obj = Record<string, unknown>;

function headerNames(ir: IR): Record<string, string> {
  const headers = ((ir.openapi.components as Obj).headers ?? {}) as Record<string, Obj>;
  const names = Object.fromEntries(
    Object.entries(headers)
      .map(([k, h]) => [k, String(h['x-name'])] as const)
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
  // rate-limits.yaml names the same headers; the two must agree.
  const values = new Set(Object.values(names));
  for (const n of Object.values(ir.rateLimits.headers))
    if (!values.has(n)) dataAt(ir, 'rateLimits', 'headers').fail('rate-limit-header-unknown', { name: n });
  return names;
}

function requestContents(ir: IR): [string, Obj][] {
  return Object.values(ir.openapi.paths as Record<string, Obj>).flatMap((item) =>
    Object.values(item).flatMap((op) =>
      Object.entries((((op as Obj).requestBody as Obj | undefined)?.content ?? {}) as Record<string, Obj>),
    ),
  );
}

function jsonContentType(ir: IR): string {
  const types = [...new Set(requestContents(ir).map(([t]) => t))];
  if (types.length !== 1) specAt(ir, 'paths').fail('request-content-types', { types: types.join(', ') });
  return types[0]!;
}

function demoRequest(ir: IR): unknown {
  const demos = requestContents(ir).flatMap(([, c]) =>
    Object.values((c.examples ?? {}) as Record<string, Obj>).filter((e) => e['x-demo'] === true),
  );
  if (demos.length !== 1) specAt(ir, 'paths').fail('demo-example-count', { count: demos.length });
  return demos[0]!.value;
}

function pathParamMaxLength(ir: IR, ops: readonly OperationIR[]): number {
  for (const op of ops)
    for (const p of op.parameters)
      if (p.in === 'path' && p.maxLength === undefined)
        specAt(ir, 'paths', op.path, op.method, 'parameters').fail('path-parameter-max-length', {
          name: p.name,
        });
  return Math.max(
    ...ops.flatMap((op) => op.parameters.flatMap((p) => (p.in === 'path' ? [p.maxLength!] : []))),
  );
}

/** The form of a client's x-request-id the service keeps and echoes (C118): from the header's x-client-pattern. */
function clientRequestIdPattern(ir: IR): string {
  const headers = ((ir.openapi.components as Obj).headers ?? {}) as Record<string, Obj>;
  const pattern = headers.RequestId?.['x-client-pattern'];
  const at = () => specAt(ir, 'components', 'headers', 'RequestId');
  if (typeof pattern !== 'string' || !pattern.startsWith('^') || !pattern.endsWith('$'))
    at().fail('client-request-id-pattern', { problem: `found ${JSON.stringify(pattern)}` });
  try {
    new RegExp(pattern as string);
  } catch (e) {
    at().fail('client-request-id-pattern', { problem: (e as Error).message });
  }
  return pattern as string;
}

function routesFile(ir: IR): EmittedFile {
  const ops = [...ir.operations].sort((a, b) => (a.operationId < b.operationId ? -1 : 1));
  const routes = Object.fromEntries(ops.map((op) => [op.operationId, route(op)]));
  const statements: (string | StatementStructures)[] = [
    constant(
      'ROUTES',
      routes,
      'Every endpoint of spec/openapi.yaml keyed by operationId: fastify URL, security alternatives (any one ' +
        'suffices), rate-limit category (C9), whether test mode applies (C7), path/query parameter rules (C1).',
    ),
    constant(
      'PATH_PARAM_MAX_LENGTH',
      pathParamMaxLength(ir, ops),
      'The longest value of any path parameter (its maxLength): the router matches no longer segment (C34).',
    ),
    constant(
      'HEADERS',
      headerNames(ir),
      'Header names of components.headers (x-name) keyed by component: the request id, Retry-After, rate limits.',
    ),
    constant(
      'CLIENT_REQUEST_ID_PATTERN',
      clientRequestIdPattern(ir),
      "A client's x-request-id is kept, echoed and logged only in this form (C118): short and plain, as it ends up in logs and headers.",
    ),
    constant(
      'JSON_CONTENT_TYPE',
      jsonContentType(ir),
      'The media type of every request body (C1); a charset parameter is accepted beside it.',
    ),
    constant(
      'DEMO_REQUEST',
      demoRequest(ir),
      'The request example of the events endpoint marked x-demo: the event the server prints for a first request.',
    ),
    {
      kind: StructureKind.TypeAlias,
      name: 'OperationId',
      isExported: true,
      type: 'keyof typeof ROUTES',
      docs: ['An operationId of the spec.'],
    },
  ];
  return { path: `${DIR}/routes.gen.ts`, content: tsFile(`${DIR}/routes.gen.ts`, statements) };
}

function problemsFile(ir: IR): EmittedFile {
  const outcomes = new Map(ir.requestErrors.map((e, order) => [e.key, { ...e, order }]));
  const problems: Record<string, unknown> = {};
  const paramTypes: string[] = [];
  for (const p of [...ir.requestProblems].sort((a, b) => (a.key < b.key ? -1 : 1))) {
    const outcome = outcomes.get(p.error);
    if (!outcome)
      return dataAt(ir, 'requestErrors', `problems.${p.key}.error`).fail('unknown-request-error', {
        error: p.error,
      });
    problems[p.key] = {
      outcome: p.error,
      order: outcome.order,
      status: outcome.status,
      code: outcome.code,
      message: outcome.message,
      template: p.template,
      params: p.params,
    };
    const fields = p.params.map((n) => `${n}: string | number`).join('; ');
    paramTypes.push(`  ${p.key}: ${fields ? `{ ${fields} }` : 'Record<string, never>'};`);
  }
  const statements: (string | StatementStructures)[] = [
    constant(
      'REQUEST_OUTCOMES',
      Object.fromEntries(
        [...outcomes].map(([k, v]) => [
          k,
          { order: v.order, status: v.status, code: v.code, message: v.message },
        ]),
      ),
      'Request-level outcomes of C2 keyed by name; `order` is the row order in which they are checked.',
    ),
    constant(
      'REQUEST_PROBLEM_TABLE',
      problems,
      'Each request problem of C2 with the outcome it answers with (status, code, message) and its detail template.',
    ),
    {
      kind: StructureKind.TypeAlias,
      name: 'RequestProblem',
      isExported: true,
      type: 'keyof typeof REQUEST_PROBLEM_TABLE',
      docs: ['Key of a request-level problem.'],
    },
    `/** Template parameters of each request problem, so a missing or misspelt parameter fails to compile. */\nexport interface RequestProblemParams {\n${paramTypes.join('\n')}\n}`,
  ];
  return {
    path: `${DIR}/request-problems.gen.ts`,
    content: tsFile(`${DIR}/request-problems.gen.ts`, statements),
  };
}

export const eventsMockServerEmitter: Emitter = {
  name: 'events-mock-server',
  owns: [DIR],
  emit(ir) {
    return [routesFile(ir), problemsFile(ir), checksFile(DIR, ir)];
  },
};
