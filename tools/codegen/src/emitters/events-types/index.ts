import { type StatementStructures, StructureKind } from 'ts-morph';
import type { EmittedFile, Emitter } from '../../emit/emitter.js';
import { constStatement, tsFile } from '../../emit/ts-file.js';
import type { IR } from '../../ir/types.js';
import { constantName } from '../../kit/literal.js';
import { enumAlias, genericSchemas, schemaInterface } from './schemas.js';

const DIR = 'packages/events-types/src/generated';

const constant = constStatement;

function enumsFile(ir: IR): EmittedFile {
  const statements = ir.enums.flatMap((e) => {
    const c = constantName(e.name);
    return [
      constant(c, e.values, `Every value of {@link ${e.name}}, in spec order.`),
      enumAlias(e.name, c, e.description),
    ];
  });
  return { path: `${DIR}/enums.gen.ts`, content: tsFile(`${DIR}/enums.gen.ts`, statements) };
}

function schemasFile(ir: IR): EmittedFile {
  const generic = genericSchemas(ir);
  const enumNames = ir.enums.map((e) => e.name).sort();
  const statements: StatementStructures[] = [
    {
      kind: StructureKind.ImportDeclaration,
      isTypeOnly: true,
      moduleSpecifier: './enums.gen.js',
      namedImports: enumNames,
    },
    ...ir.schemas.map((s) => schemaInterface(s, generic)),
  ];
  return { path: `${DIR}/schemas.gen.ts`, content: tsFile(`${DIR}/schemas.gen.ts`, statements) };
}

function eventNamesFile(ir: IR): EmittedFile {
  const en = ir.eventNames;
  const statements = [
    constant(
      'STANDARD_EVENT_NAME_TABLE',
      en.standard,
      'The standard event-name table of seed 2.2: API name, tag name, purpose, usable for.',
    ),
    constant(
      'EVENT_NAME_GROUPS',
      en.groups,
      'Named groups of standard event names, used by recommended-field rules.',
    ),
    constant(
      'CUSTOM_EVENT_NAME_RULE',
      {
        pattern: en.custom.pattern,
        maxLength: en.custom.maxLength.value,
        maxPerAccount: en.custom.maxPerAccount.value,
        caseInsensitive: en.custom.caseInsensitive,
        usableFor: en.custom.usableFor,
      },
      'The custom event name rule of seed 2.3 and C10.',
    ),
    constant(
      'EVENT_NAME_SUGGESTIONS',
      { examples: en.suggestedExamples, maxDistance: en.suggestionMaxDistance },
      'Examples named in the invalid event_name message, and how near a name must be to be suggested (C4).',
    ),
  ];
  return { path: `${DIR}/event-names.gen.ts`, content: tsFile(`${DIR}/event-names.gen.ts`, statements) };
}

function limitsFile(ir: IR): EmittedFile {
  const limits = Object.fromEntries(
    ir.limits.map((l) => [
      l.key,
      { value: l.value, unit: l.unit, description: l.description, source: l.source },
    ]),
  );
  const statements: (string | StatementStructures)[] = [
    constant('LIMITS', limits, 'Every limit of the service (seed 8, C1-C10), from spec/data/limits.yaml.'),
    {
      kind: StructureKind.TypeAlias,
      name: 'LimitKey',
      isExported: true,
      type: 'keyof typeof LIMITS',
      docs: ['Name of a limit.'],
    },
  ];
  return { path: `${DIR}/limits.gen.ts`, content: tsFile(`${DIR}/limits.gen.ts`, statements) };
}

function rateLimitsFile(ir: IR): EmittedFile {
  const statements = [
    constant('RATE_LIMITS', ir.rateLimits, 'The rate-limit tables of seed 8 in full, and the headers of C9.'),
  ];
  return { path: `${DIR}/rate-limits.gen.ts`, content: tsFile(`${DIR}/rate-limits.gen.ts`, statements) };
}

function problemsFile(ir: IR): EmittedFile {
  const problems = Object.fromEntries(
    ir.messages.map((m) => [
      m.code,
      {
        severity: m.severity,
        kind: m.kind,
        template: m.template,
        params: m.params,
        description: m.description,
        ...(m.drops ? { drops: true } : {}),
        ...(m.reasons ? { reasons: Object.fromEntries(m.reasons.map((x) => [x.key, x.template])) } : {}),
      },
    ]),
  );
  const reqProblems = Object.fromEntries(
    ir.requestProblems.map((p) => [p.key, { error: p.error, template: p.template, params: p.params }]),
  );
  const statements: (string | StatementStructures)[] = [
    constant(
      'PROBLEM_CODES',
      problems,
      'Per-event problem codes (C3, C4): severity, rule kind, message template and its parameters.',
    ),
    {
      kind: StructureKind.TypeAlias,
      name: 'ProblemCode',
      isExported: true,
      type: 'keyof typeof PROBLEM_CODES',
      docs: ['A stable per-event problem code.'],
    },
    constant(
      'MESSAGE_JOIN',
      ir.messageJoin,
      'C3: how the messages of one event are joined, and the text that says how many were left out.',
    ),
    constant(
      'VALUE_SHAPES',
      ir.valueShapes,
      'C21: words naming the shape of a value that must not be quoted (hashed fields and objects holding them).',
    ),
    constant(
      'REQUEST_ERRORS',
      ir.requestErrors,
      'Request-level outcomes of C2, in the order they are checked.',
    ),
    {
      kind: StructureKind.TypeAlias,
      name: 'RequestErrorKey',
      isExported: true,
      type: "(typeof REQUEST_ERRORS)[number]['key']",
      docs: ['Key of a request-level outcome.'],
    },
    constant(
      'REQUEST_PROBLEMS',
      reqProblems,
      'Problems reported in the details of a request-level failure (C2).',
    ),
    {
      kind: StructureKind.TypeAlias,
      name: 'RequestProblemKey',
      isExported: true,
      type: 'keyof typeof REQUEST_PROBLEMS',
      docs: ['Key of a request-level problem.'],
    },
  ];
  return { path: `${DIR}/problems.gen.ts`, content: tsFile(`${DIR}/problems.gen.ts`, statements) };
}

function codeListsFile(ir: IR): EmittedFile {
  const c = ir.codeLists;
  const statements: (string | StatementStructures)[] = [
    constant(
      'CURRENCY_CODES',
      c.currencies.map((x) => x.code),
      'ISO-4217 currency codes accepted in custom_data.currency (C4).',
    ),
    {
      kind: StructureKind.TypeAlias,
      name: 'CurrencyCode',
      isExported: true,
      type: '(typeof CURRENCY_CODES)[number]',
      docs: ['An ISO-4217 currency code.'],
    },
    constant('CURRENCIES', c.currencies, 'ISO-4217 currency codes with names.'),
    constant(
      'LANGUAGE_CODES',
      c.languages.map((x) => x.code),
      'ISO-639-1 language codes accepted in language (C4).',
    ),
    {
      kind: StructureKind.TypeAlias,
      name: 'LanguageCode',
      isExported: true,
      type: '(typeof LANGUAGE_CODES)[number]',
      docs: ['An ISO-639-1 language code.'],
    },
    constant('LANGUAGES', c.languages, 'ISO-639-1 language codes with names.'),
    constant(
      'COUNTRIES',
      c.countries,
      'ISO-3166 alpha-2 countries (lower case) with names and aliases, for normalization (C5).',
    ),
    constant(
      'REGIONS',
      c.regions,
      'US states and Canadian provinces with names and aliases, for normalization (C5).',
    ),
  ];
  return { path: `${DIR}/code-lists.gen.ts`, content: tsFile(`${DIR}/code-lists.gen.ts`, statements) };
}

function normalizationFile(ir: IR): EmittedFile {
  const fields: Record<string, string> = {};
  for (const s of ir.schemas) for (const f of s.fields) if (f.normalize) fields[f.name] = f.normalize;
  const statements = [
    constant(
      'NORMALIZATION',
      { fields, ...ir.normalization },
      'Client-side normalization of C5: each hashed user_data field -> its kind, what each kind does, and the data it needs.',
    ),
  ];
  return { path: `${DIR}/normalization.gen.ts`, content: tsFile(`${DIR}/normalization.gen.ts`, statements) };
}

function deletionKeysFile(ir: IR): EmittedFile {
  const statements: (string | StatementStructures)[] = [
    constant(
      'DELETION_KEYS',
      ir.deletionKeys,
      "C91, C124: each list of a conversion deletion request's targets, the user_data field its entries are matched against, and whether that field holds SHA-256 digests.",
    ),
    {
      kind: StructureKind.TypeAlias,
      name: 'DeletionKeyField',
      isExported: true,
      type: "(typeof DELETION_KEYS)[number]['field']",
      docs: ['A user_data field a conversion deletion request matches.'],
    },
  ];
  return { path: `${DIR}/deletion-keys.gen.ts`, content: tsFile(`${DIR}/deletion-keys.gen.ts`, statements) };
}

function operationsFile(ir: IR): EmittedFile {
  const statements = [
    constant(
      'OPERATIONS',
      ir.operations,
      'Every endpoint of the spec: method, path, parameters, security, rate-limit category.',
    ),
    constant('SECURITY_SCHEMES', ir.securitySchemes, 'Authentication schemes (seed 5, C8).'),
  ];
  return { path: `${DIR}/operations.gen.ts`, content: tsFile(`${DIR}/operations.gen.ts`, statements) };
}

function indexFile(files: EmittedFile[]): EmittedFile {
  const statements = files
    .map((f) => f.path.slice(DIR.length + 1).replace(/\.ts$/, '.js'))
    .sort()
    .map((m) => `export * from './${m}';`);
  return { path: `${DIR}/index.gen.ts`, content: tsFile(`${DIR}/index.gen.ts`, statements) };
}

export const eventsTypesEmitter: Emitter = {
  name: 'events-types',
  owns: [DIR],
  emit(ir) {
    const files = [
      enumsFile(ir),
      schemasFile(ir),
      eventNamesFile(ir),
      limitsFile(ir),
      rateLimitsFile(ir),
      problemsFile(ir),
      codeListsFile(ir),
      normalizationFile(ir),
      deletionKeysFile(ir),
      operationsFile(ir),
    ];
    return [...files, indexFile(files)];
  },
};
