import type { IR, OperationIR } from '../../ir/types.js';
import { specAt } from '../../kit/spec-at.js';

/**
 * What the client's runtime needs of one operation, for the sender's operations and the admin ones alike:
 * one shape, so one transport calls both (C55, C106).
 */
export type Obj = Record<string, unknown>;

export function components(ir: IR, kind: string): Record<string, Obj> {
  return (((ir.openapi.components as Obj)[kind] ?? {}) as Record<string, Obj>) ?? {};
}

export function deref(ir: IR, o: Obj, kind: string): Obj {
  const ref = o.$ref;
  if (typeof ref !== 'string') return o;
  const name = ref.split('/').pop()!;
  const target = components(ir, kind)[name];
  if (!target) return specAt(ir, 'components', kind).fail('unresolved-ref', { ref });
  return target;
}

/** The raw responses of an operation, as the spec writes them. */
export function rawResponses(ir: IR, op: OperationIR): Record<string, Obj> {
  const item = (ir.openapi.paths as Record<string, Obj>)[op.path]?.[op.method] as Obj | undefined;
  return (item?.responses ?? {}) as Record<string, Obj>;
}

/** The name of the component header that holds `Retry-After`. */
export function retryAfterName(ir: IR): string {
  const found = Object.values(components(ir, 'headers')).find(
    (h) => String(h['x-name']).toLowerCase() === ir.rateLimits.headers.retryAfter?.toLowerCase(),
  );
  if (!found) return specAt(ir, 'components.headers').fail('retry-after-header');
  return String(found['x-name']);
}

/** Statuses of an operation whose response declares Retry-After: the ones worth retrying (C55). */
function retryableStatuses(ir: IR, op: OperationIR): number[] {
  const name = retryAfterName(ir).toLowerCase();
  return Object.entries(rawResponses(ir, op))
    .filter(([status]) => /^\d{3}$/.test(status))
    .filter(([, r]) => {
      const headers = (deref(ir, r, 'responses').headers ?? {}) as Record<string, Obj>;
      return Object.keys(headers).some((h) => h.toLowerCase() === name);
    })
    .map(([status]) => Number(status))
    .sort((a, b) => a - b);
}

export function successStatus(ir: IR, op: OperationIR): number {
  const ok = op.responses.map((r) => Number(r.status)).filter((s) => s >= 200 && s < 300);
  if (ok.length !== 1)
    specAt(ir, 'paths', op.path, op.method, 'responses').fail('success-response-count', { count: ok.length });
  return ok[0]!;
}

/**
 * The header a cookie-authenticated call must add (C71): the apiKey header of the scheme that the spec pairs
 * with a session scheme in one security alternative; null when no alternative pairs one.
 */
function pairedHeader(ir: IR, op: OperationIR): string | null {
  for (const alt of op.security)
    for (const name of alt.with ?? []) {
      const scheme = ir.securitySchemes.find((s) => s.name === name);
      if (scheme?.parameter?.in === 'header') return scheme.parameter.name;
    }
  return null;
}

export function operation(ir: IR, op: OperationIR) {
  return {
    method: op.method.toUpperCase(),
    path: op.path,
    pathParams: op.parameters.filter((p) => p.in === 'path').map((p) => p.name),
    testParam: op.testMode ? (op.parameters.find((p) => p.in === 'query' && !p.aliasOf)?.name ?? null) : null,
    hasBody: op.requestBody !== undefined,
    success: successStatus(ir, op),
    retryable: retryableStatuses(ir, op),
    security: op.security.map((s) => s.scheme),
    csrfHeader: pairedHeader(ir, op),
  };
}
