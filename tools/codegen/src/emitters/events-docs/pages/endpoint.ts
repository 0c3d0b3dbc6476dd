import type { OperationIR, ParameterIR } from '../../../ir/types.js';
import { blocks, code, limitText, link, list, table, words } from '../../../kit/md.js';
import { type DocsContext, objectRef } from '../context.js';
import { dig } from '../examples.js';
import { fieldType, typeText } from '../rules.js';
import type { Page } from './page.js';

export function paramRows(params: ParameterIR[]): string[][] {
  return params.map((p) => [
    code(p.name),
    p.in,
    p.required ? 'yes' : 'no',
    p.enum
      ? `${typeText(p.type)}: ${p.enum.map(code).join(' or ')}`
      : p.pattern
        ? `${typeText(p.type)} matching ${code(p.pattern)}`
        : typeText(p.type),
    p.description,
  ]);
}

export function authText(op: OperationIR): string {
  if (!op.security.length) return 'none';
  return words(
    op.security.map(
      (s) =>
        `${code(s.scheme)}${s.scopes.length ? ` (${s.scopes.map(code).join(', ')})` : ''}${s.with?.length ? ` with ${words(s.with.map(code))}` : ''}`,
    ),
    'or',
  );
}

/** A response schema as a table of its fields, nested objects expanded with dotted names. */
export function schemaTable(ctx: DocsContext, name: string, prefix = ''): string[][] {
  return ctx.schema(name).fields.flatMap((f) => {
    const values = f.type.kind === 'ref' && f.type.target === 'enum' ? ctx.enumValues(f.type.name) : [];
    const meaning = [f.description, values.length ? `One of ${values.map(code).join(', ')}.` : '']
      .filter(Boolean)
      .join(' ');
    const row = [code(`${prefix}${f.name}`), fieldType(f), f.required ? 'yes' : 'no', meaning];
    const ref = objectRef(f.type);
    return ref
      ? [row, ...schemaTable(ctx, ref, `${prefix}${f.name}${f.type.kind === 'array' ? '[]' : ''}.`)]
      : [row];
  });
}

function contentTypes(ctx: DocsContext, op: OperationIR): string[] {
  const content = dig(ctx.ir, 'paths', op.path, op.method, 'requestBody', 'content');
  return content && typeof content === 'object' ? Object.keys(content) : [];
}

export const endpointPage: Page = {
  slug: 'endpoint',
  title: 'The events endpoint',
  summary:
    'Method, path, parameters, headers, request body and responses of the endpoint that receives events.',
  body(ctx) {
    const op = ctx.eventsOp;
    const bounds = ctx.dataField.rules.find((r) => r.kind === 'bounds');
    const body = ctx.ir.limits.find((l) => l.key === 'body_max_bytes');
    const headers = [
      [
        'Authorization',
        `${code('Bearer <token>')}: a token of one of the kinds on ${link('Authentication', 'authentication')} (seed 5)`,
      ],
      ...contentTypes(ctx, op).map((t) => ['Content-Type', `${code(t)} (a charset parameter is fine, C1)`]),
    ];
    return blocks(
      `${code(`${op.method.toUpperCase()} ${op.path}`)}: ${op.summary}.`,
      op.description,
      '## Parameters',
      'The path and query parameters (C1). `test` and `is_test` are the same switch; see '.concat(
        link('Test mode', 'test-mode'),
        '.',
      ),
      table(['Name', 'In', 'Required', 'Type', 'Description'], paramRows(op.parameters)),
      '## Headers',
      table(['Header', 'Value'], headers),
      '## Request body',
      `A JSON object with ${code(ctx.dataField.name)}: ${ctx.dataField.description}`,
      list(
        [
          bounds?.kind === 'bounds' &&
            bounds.minItems !== undefined &&
            `At least ${limitText(bounds.minItems)} event.`,
          bounds?.kind === 'bounds' &&
            bounds.maxItems !== undefined &&
            `At most ${limitText(bounds.maxItems)} events.`,
          body &&
            `At most ${limitText({ key: body.key, value: body.value, overflow: body.overflow })} bytes of body.`,
          `Any other top-level key rejects the request (400, see ${link('Request errors', 'request-errors')}).`,
          `Each event is described field by field on ${link('Fields', 'fields')}; a full example is on ${link('Examples', 'examples')}.`,
        ].filter((x): x is string => typeof x === 'string'),
      ),
      '## Responses',
      table(
        ['Status', 'Meaning', 'Body'],
        op.responses.map((r) => [code(r.status), r.description, r.schema ? code(r.schema) : '']),
      ),
      `Request-level failures are checked in a fixed order; ${link('Request errors', 'request-errors')} lists them with the fix for each. A well-formed request always answers 200 with one result per event, even when every event failed (C3).`,
      '### The 200 body',
      table(
        ['Field', 'Type', 'Always present', 'Meaning'],
        schemaTable(ctx, op.responses.find((r) => r.status === '200')?.schema ?? 'BatchResponse'),
      ),
      '## Every endpoint of the service',
      'The events endpoint is the one a sender needs; the others register custom event types (C10) or operate the service (C12).',
      table(
        ['Method', 'Path', 'Summary', 'Tokens', 'Rate-limit category'],
        ctx.operations.map((o) => [
          code(o.method.toUpperCase()),
          code(o.path),
          o.summary,
          authText(o),
          o.rateLimitCategory ? code(o.rateLimitCategory) : 'none',
        ]),
      ),
    );
  },
};
