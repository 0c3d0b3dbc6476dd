import { describe, expect, it } from 'vitest';
import type { LimitIR } from '../src/ir/types.js';
import { Reader } from '../src/load/reader.js';
import { SpecError } from '../src/load/spec-error.js';
import { buildSchemas } from '../src/model/schemas.js';
import type { SchemaContext } from '../src/rules/context.js';

// Given/want tables for IR building (openapi-typescript style): a components.schemas snippet in,
// the FieldIR/SchemaIR out. Limits and groups are small fixed tables so expectations stay literal.
const limits: LimitIR[] = [
  { key: 'id_max', value: 64, unit: 'characters', description: 'x', source: 'test', overflow: 'fail' },
  { key: 'value_max', value: 1000, unit: 'decimal', description: 'x', source: 'test', overflow: 'fail' },
];

function build(schemas: Record<string, unknown>) {
  const ctx: SchemaContext = {
    file: 'spec/openapi.yaml',
    doc: { components: { schemas } },
    limits,
    groups: { purchase: ['checkout'] },
    actionSources: ['web', 'app_ios'],
    messageKinds: new Set(),
  };
  return buildSchemas(ctx);
}

describe('fields: given a property, want a FieldIR', () => {
  const cases: {
    name: string;
    given: Record<string, unknown>;
    required?: boolean;
    want: Record<string, unknown>;
  }[] = [
    {
      name: 'plain string',
      given: { type: 'string', description: 'An id.' },
      want: {
        name: 'f',
        description: 'An id.',
        type: { kind: 'primitive', name: 'string' },
        required: false,
        nullable: false,
        rules: [
          {
            kind: 'type',
            severity: 'failed',
            expected: { kind: 'primitive', name: 'string' },
            nullable: false,
          },
        ],
        itemRules: [],
        expected: 'a string',
      },
    },
    {
      name: 'required nullable string with an x-limits bound (limit kept by key)',
      required: true,
      given: { type: ['string', 'null'], minLength: 1, 'x-limits': { maxLength: 'id_max' }, maxLength: 64 },
      want: {
        required: true,
        nullable: true,
        expected: 'a string or null',
        rules: [
          { kind: 'required', severity: 'failed' },
          {
            kind: 'type',
            severity: 'failed',
            expected: { kind: 'primitive', name: 'string' },
            nullable: true,
          },
          { kind: 'bounds', severity: 'failed', minLength: 1, maxLength: { key: 'id_max', value: 64 } },
        ],
      },
    },
    {
      name: 'pattern with warning severity',
      given: { type: 'string', pattern: '^ss-[a-z]+$', 'x-severity': 'warning', 'x-expected': 'ss-<name>' },
      want: {
        expected: 'ss-<name>',
        rules: [
          {
            kind: 'type',
            severity: 'failed',
            expected: { kind: 'primitive', name: 'string' },
            nullable: false,
          },
          { kind: 'pattern', severity: 'warning', pattern: '^ss-[a-z]+$' },
        ],
      },
    },
    {
      name: 'enum reference, case-insensitive, nullable through oneOf',
      given: { oneOf: [{ $ref: '#/components/schemas/Kind' }, { type: 'null' }], 'x-case-insensitive': true },
      want: {
        type: { kind: 'ref', name: 'Kind', target: 'enum' },
        nullable: true,
        rules: [
          {
            kind: 'type',
            severity: 'failed',
            expected: { kind: 'ref', name: 'Kind', target: 'enum' },
            nullable: true,
          },
          { kind: 'enum', severity: 'failed', enum: 'Kind', values: ['a', 'b'], caseInsensitive: true },
        ],
      },
    },
    {
      name: 'alias schema inlined: hashed array with item rules, normalization and recommendation',
      given: {
        $ref: '#/components/schemas/Hashes',
        'x-normalize': 'email',
        'x-recommended': { actionSources: ['web'], eventNames: 'purchase' },
      },
      want: {
        type: { kind: 'array', items: { kind: 'primitive', name: 'string' } },
        itemRules: [
          {
            kind: 'type',
            severity: 'failed',
            expected: { kind: 'primitive', name: 'string' },
            nullable: false,
          },
          { kind: 'sha256-hex', severity: 'warning' },
        ],
        normalize: 'email',
        recommended: { actionSources: ['web'], eventNames: ['checkout'] },
        expected: 'hashes',
      },
    },
    {
      name: 'custom rule kinds resolve limit names',
      given: {
        type: 'string',
        'x-rules': [{ kind: 'decimal-string', exclusiveMinimum: 0, maximumLimit: 'value_max' }],
      },
      want: {
        rules: [
          {
            kind: 'type',
            severity: 'failed',
            expected: { kind: 'primitive', name: 'string' },
            nullable: false,
          },
          {
            kind: 'decimal-string',
            severity: 'failed',
            exclusiveMinimum: 0,
            maximum: { key: 'value_max', value: 1000 },
          },
        ],
      },
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const { schemas } = build({
        Kind: { type: 'string', enum: ['a', 'b'] },
        Hashes: {
          type: 'array',
          items: { type: 'string', 'x-rules': [{ kind: 'sha256-hex' }] },
          'x-expected': 'hashes',
        },
        Obj: { type: 'object', required: c.required ? ['f'] : [], properties: { f: c.given } },
      });
      expect(schemas.find((s) => s.name === 'Obj')!.fields[0]).toMatchObject(c.want);
    });
});

describe('objects: unknown keys, cross-field rules and dedup become object rules', () => {
  it('a dedup key must name fields of the batch items', () => {
    expect(() =>
      build({
        Req: {
          type: 'object',
          'x-dedup': { key: ['nope'], windowLimit: 'id_max' },
          properties: { a: { type: 'string' } },
        },
      }),
    ).toThrow(
      'spec/openapi.yaml: components.schemas.Req.x-dedup.key[0]: "nope" is not a property of the items of Req',
    );
  });

  it('orders unknown-keys first, then x-rules, then dedup', () => {
    const { schemas, enums } = build({
      Req: {
        type: 'object',
        'x-unknown-keys': 'request',
        'x-dedup': { key: ['id'], windowLimit: 'id_max' },
        'x-rules': [{ kind: 'require-any-of', alternatives: [['a'], ['b', 'c']] }],
        properties: {
          data: { type: 'array', items: { $ref: '#/components/schemas/Item' } },
          a: { type: 'string' },
          b: { type: 'string' },
          c: { type: 'string' },
        },
      },
      Item: { type: 'object', properties: { id: { type: 'string' } } },
      Status: { type: 'string', enum: ['x'], description: 'S.' },
    });
    expect(enums).toEqual([{ name: 'Status', description: 'S.', values: ['x'] }]);
    expect(schemas.find((x) => x.name === 'Req')).toMatchObject({
      name: 'Req',
      unknownKeys: 'request',
      rules: [
        { kind: 'unknown-keys', severity: 'request' },
        { kind: 'require-any-of', severity: 'failed', alternatives: [['a'], ['b', 'c']] },
        { kind: 'dedup', severity: 'warning', key: ['id'], window: { key: 'id_max', value: 64 } },
      ],
    });
  });
});

describe('bad specs fail with the file, the path and the problem', () => {
  const cases: { name: string; schemas: Record<string, unknown>; want: string }[] = [
    {
      name: 'unknown rule kind',
      schemas: {
        O: { type: 'object', properties: { f: { type: 'string', 'x-rules': [{ kind: 'telepathy' }] } } },
      },
      want: 'spec/openapi.yaml: components.schemas.O.properties.f.x-rules[0].kind: unknown rule kind "telepathy" [unknown-rule-kind]',
    },
    {
      name: 'unknown limit',
      schemas: {
        O: { type: 'object', properties: { f: { type: 'string', 'x-limits': { maxLength: 'nope' } } } },
      },
      want: 'spec/openapi.yaml: components.schemas.O.properties.f.x-limits.maxLength: unknown limit "nope"; limits are defined in spec/data/limits.yaml [unknown-limit]',
    },
    {
      name: 'unknown parameter of a kind',
      schemas: {
        O: {
          type: 'object',
          properties: { f: { type: 'string', 'x-rules': [{ kind: 'url', scheme: 'x' }] } },
        },
      },
      want: 'spec/openapi.yaml: components.schemas.O.properties.f.x-rules[0].scheme: unknown parameter of rule kind url [unknown-rule-parameter]',
    },
    {
      name: 'required field that is not a property',
      schemas: { O: { type: 'object', required: ['g'], properties: { f: { type: 'string' } } } },
      want: 'spec/openapi.yaml: components.schemas.O.required: "g" is required but not a property [required-not-property]',
    },
    {
      name: 'cross-field rule naming a missing field',
      schemas: {
        O: {
          type: 'object',
          'x-rules': [{ kind: 'require-any-of', alternatives: [['zz']] }],
          properties: { f: { type: 'string' } },
        },
      },
      want: 'spec/openapi.yaml: components.schemas.O.x-rules: require-any-of: field "zz" is not a property of O [rule-field-unknown]',
    },
    {
      name: 'unknown event-name group in a recommendation',
      schemas: {
        O: {
          type: 'object',
          properties: { f: { type: 'string', 'x-recommended': { eventNames: 'gifts' } } },
        },
      },
      want: 'spec/openapi.yaml: components.schemas.O.properties.f.x-recommended.eventNames: unknown event name group "gifts"; groups are defined in spec/data/event-names.yaml [unknown-event-group]',
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      let caught: unknown;
      try {
        build(c.schemas);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(SpecError);
      expect((caught as SpecError).message).toBe(c.want);
    });

  it('Reader names the path of a wrong type', () => {
    const r = new Reader('spec/data/limits.yaml', { limits: { a: { value: 'x' } } });
    expect(() => r.at('limits').at('a').at('value').number()).toThrow(
      'spec/data/limits.yaml: limits.a.value: expected a number, found string "x" [expected-number]',
    );
  });
});
