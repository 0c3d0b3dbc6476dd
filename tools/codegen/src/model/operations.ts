import type { OperationIR, ParameterIR, SecuritySchemeIR } from '../ir/types.js';
import { Reader } from '../load/reader.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function resolveRef(doc: Reader, node: Reader): Reader {
  const ref = (node.value as { $ref?: string } | undefined)?.$ref;
  if (typeof ref !== 'string') return node;
  let r = doc;
  for (const part of ref.replace(/^#\//, '').split('/')) r = r.at(part);
  if (!r.present) node.at('$ref').fail('unresolved-ref', { ref });
  return r;
}

function schemaName(node: Reader): string | undefined {
  const ref = (node.value as { $ref?: string } | undefined)?.$ref;
  return typeof ref === 'string' ? ref.replace('#/components/schemas/', '') : undefined;
}

export function buildOperations(file: string, docValue: Record<string, unknown>): OperationIR[] {
  const doc = new Reader(file, docValue);
  const ops: OperationIR[] = [];
  for (const [path, item] of doc.at('paths').entries()) {
    for (const method of METHODS) {
      const op = item.at(method);
      if (!op.present) continue;
      const parameters: ParameterIR[] = op
        .at('parameters')
        .optArray()
        .map((p0) => {
          const p = resolveRef(doc, p0);
          const schema = p.at('schema');
          const t = schema.at('type').string();
          const param: ParameterIR = {
            name: p.at('name').string(),
            in: p.at('in').oneOf(['path', 'query', 'header'] as const),
            required: p.at('required').present ? p.at('required').boolean() : false,
            description: p.at('description').optString() ?? '',
            // An array parameter (style form, explode) holds strings: it is given repeated (C101).
            type:
              t === 'array'
                ? { kind: 'array', items: { kind: 'primitive', name: 'string' } }
                : {
                    kind: 'primitive',
                    name: t === 'integer' ? 'integer' : t === 'boolean' ? 'boolean' : 'string',
                  },
          };
          if (schema.at('enum').present) param.enum = schema.at('enum').strings();
          if (schema.at('pattern').present) param.pattern = schema.at('pattern').regex();
          if (schema.at('minimum').present) param.minimum = schema.at('minimum').number();
          if (schema.at('maximum').present) param.maximum = schema.at('maximum').number();
          if (schema.at('exclusiveMaximum').present)
            param.exclusiveMaximum = schema.at('exclusiveMaximum').number();
          if (schema.at('maxLength').present) param.maxLength = schema.at('maxLength').number();
          const alias = p.at('x-alias-of').optString();
          if (alias !== undefined) param.aliasOf = alias;
          const dflt = schema.at('default').value;
          if (typeof dflt === 'string' || typeof dflt === 'number' || typeof dflt === 'boolean')
            param.default = dflt;
          return param;
        });
      const body = op.at('requestBody').at('content').at('application/json').at('schema');
      const responses = op
        .at('responses')
        .entries()
        .map(([status, r0]) => {
          const r = resolveRef(doc, r0);
          const content = r.at('content');
          const json = content.at('application/json').at('schema');
          const s = json.present ? schemaName(json) : undefined;
          return { status, description: r.at('description').string(), ...(s ? { schema: s } : {}) };
        })
        .sort((a, b) => (a.status < b.status ? -1 : 1));
      // Each alternative of `security` (any one suffices); an alternative of several schemes needs them all
      // together: its first scheme names it and the others are listed in `with` (C71: cookie + CSRF header).
      // An empty alternative (`{}`) means the operation also answers without credentials.
      const security = op
        .at('security')
        .optArray()
        .flatMap((alt) => {
          const [first, ...rest] = alt.entries();
          if (!first) return [];
          return [
            {
              scheme: first[0],
              scopes: first[1].strings(),
              ...(rest.length ? { with: rest.map(([scheme]) => scheme) } : {}),
            },
          ];
        });
      const tags = op.at('tags').optArray();
      const category = op.at('x-ratelimit-category').optString();
      const requestBody = body.present ? schemaName(body) : undefined;
      ops.push({
        operationId: op.at('operationId').string(),
        method,
        path,
        summary: op.at('summary').string(),
        description: op.at('description').optString() ?? '',
        tag: tags[0]?.string() ?? 'default',
        parameters,
        ...(requestBody ? { requestBody } : {}),
        responses,
        security,
        ...(category ? { rateLimitCategory: category } : {}),
        testMode: op.at('x-test-mode').present ? op.at('x-test-mode').boolean() : false,
        faults: op.at('x-faults').present ? op.at('x-faults').boolean() : false,
        loginThrottle: op.at('x-login-throttle').present ? op.at('x-login-throttle').boolean() : false,
      });
    }
  }
  return ops.sort((a, b) => (a.operationId < b.operationId ? -1 : 1));
}

export function buildSecuritySchemes(file: string, docValue: Record<string, unknown>): SecuritySchemeIR[] {
  const doc = new Reader(file, docValue);
  return doc
    .at('components')
    .at('securitySchemes')
    .entries()
    .map(([name, s]) => {
      const scopes: Record<string, string> = {};
      for (const [, flow] of s.at('flows').present ? s.at('flows').entries() : [])
        for (const [scope, d] of flow.at('scopes').entries()) scopes[scope] = d.string();
      const scheme = s.at('scheme').optString();
      const where = s.at('in').optString();
      return {
        name,
        type: s.at('type').string(),
        ...(scheme ? { scheme } : {}),
        // An apiKey scheme (a cookie, C64): where it travels and under which name.
        ...(where ? { parameter: { in: where, name: s.at('name').string() } } : {}),
        description: s.at('description').optString() ?? '',
        scopes,
      };
    })
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}
