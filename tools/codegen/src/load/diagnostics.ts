/**
 * Every problem `pnpm gen` reports in spec/ (or in the repository it checks): a stable code and its message
 * template. `{name}` is a parameter the reporter gives; braces around anything but a bare name are text.
 * A new check adds one line here and reports it with `reader.fail(code, params)` or `new SpecError(...)`;
 * test/diagnostics.test.ts makes each code fire on a broken spec (C105).
 */
export const DIAGNOSTICS = {
  // A value of the wrong shape (Reader).
  'expected-string': 'expected a string, found {found}',
  'expected-number': 'expected a number, found {found}',
  'expected-integer': 'expected an integer, found {found}',
  'expected-boolean': 'expected true or false, found {found}',
  'expected-one-of': 'expected one of {allowed}, found "{found}"',
  'expected-list': 'expected a list, found {found}',
  'expected-mapping': 'expected a mapping, found {found}',
  'invalid-regex': 'not a valid regular expression: {detail}',
  'empty-text': 'must not be empty',

  // Files (load).
  'unreadable-file': 'cannot read the file: {reason}',
  'yaml-syntax': '{detail}',
  'x-data-not-mapping': 'expected a mapping of data file names',
  'x-data-not-file-name': 'expected a file name',
  'data-file-missing': 'missing: this data file is required',
  'openapi-invalid': '{detail}',
  'unresolved-ref': 'unresolved reference {ref}',

  // Decision records (spec/decisions).
  'front-matter-open': 'expected front matter opening with "---"',
  'front-matter-close': 'the front matter has no closing "---" line',
  'decision-section-unknown': 'expected only the sections {sections}',
  'decision-section-twice': 'appears twice',
  'decision-text-before-section': 'text before "## {section}"; start the body with it',
  'decision-section-missing': 'is missing or empty',
  'decision-field-unknown': 'is not a field of a decision record ({fields})',
  'decision-id-format': 'expected C and a number, such as C6; found "{id}"',
  'decision-file-name': 'the file name must start with "{id}-" (such as {id}-deduplication.md)',
  'decision-date-format': 'expected YYYY-MM-DD, found "{date}"',
  'superseded-without-replacement': 'a superseded record names the record that replaces it',
  'replacement-not-superseded': 'only a superseded record names a replacement; set status: superseded',
  'decision-id-twice': '{id} is also the id of {file}',
  'superseded-by-itself': 'names the record itself',
  'unknown-decision': 'no record in spec/decisions has the id {id}',
  'difference-without-decision': 'name at least one decision record',

  // Data files (spec/data).
  'limit-key-case': 'limit keys are snake_case',
  'unknown-limit': 'unknown limit "{key}"; limits are defined in spec/data/limits.yaml',
  'unknown-limit-format': 'unknown format "{format}" of limit {key}; formats are {formats}',
  'duration-of-non-time': 'limit {key} is in {unit}; only a time limit has the duration format',
  'limit-value-in-prose':
    'writes out "{written}", the value of {limits}; write {template}{alternative} so the text follows spec/data/limits.yaml (C108){others}',
  'event-name-case': 'standard event names are lower snake_case',
  'event-name-twice': 'duplicate event name "{name}"',
  'not-standard-event-name': '"{name}" is not a standard event name',
  'unknown-event-group':
    'unknown event name group "{group}"; groups are defined in spec/data/event-names.yaml',
  'rate-window-not-positive': 'limit and window must be positive',
  'template-brackets': 'unbalanced [[ ]] in template',
  'template-parameter': 'bad template parameter "{param}"',
  'template-parameter-missing': '{what} needs a {param} parameter',
  'message-code-case': 'message codes are snake_case',
  'drops-not-warning': 'only a warning drops a value',
  'unknown-shape': 'unknown shape "{key}"; shapes are {shapes}',
  'shape-missing': 'shape "{key}" is missing',
  'unknown-request-error': 'unknown error "{error}"; errors are listed under errors:',
  'code-format': '"{code}" is not a valid code for {list}',
  'code-twice': 'duplicate code "{code}"',
  'region-code-format': '"{code}" is not a two-letter lower-case code',

  // Message codes against rule kinds (messages.yaml, src/rules).
  'message-template-missing': 'no template for code "{code}", which rule kind {kind} emits',
  'message-kind-mismatch': 'code "{code}" is emitted by kind {kind}',
  'message-code-unused': 'no rule kind emits "{code}" (kind {kind})',
  'message-reasons-mismatch': 'rule kind {kind} tells apart {want}; found {have}',

  // Schemas and extensions (openapi.yaml).
  'x-limits-keyword': 'x-limits supports {keywords}; not {keyword}',
  'x-limits-twice': '{keyword} is set both directly and through x-limits; keep only x-limits',
  'unknown-enum-source': 'unknown enum source; use one of {sources}',
  'unknown-schema': 'no schema named {name}',
  'one-of-unsupported': 'only oneOf [X, {type: null}] is supported',
  'type-union': 'a field has one type, optionally with null',
  'type-unsupported': 'unsupported type {type}; use string, integer, number, boolean, array or a $ref',
  'unknown-rule-kind': 'unknown rule kind "{kind}"',
  'unknown-rule-parameter': 'unknown parameter of rule kind {kind}',
  'rule-kind-misplaced': 'rule kind {kind} goes on {place}, not on {here}',
  'required-not-property': '"{name}" is required but not a property',
  'dedup-key-not-item-property': '"{key}" is not a property of the items of {schema}',
  'rule-field-unknown': '{kind}: field "{name}" is not a property of {schema}',
  'header-name-mismatch': 'listed as {name}, but its x-name is {xName}',

  // What the validators emitter needs of the schemas (src/rules, src/emitters/events-validators).
  'min-items-per-event': 'minItems is checked on the batch request only, not on a field of an event',
  'min-length-unsupported': 'minLength {min}: only minLength 1 (empty_string) is supported',
  'agrees-with-not-object': 'agrees-with: {in} is not an object property',
  'agrees-with-no-field': 'agrees-with: {in} has no field {field}',
  'event-name-field-missing': '{what} needs a field with the event-name rule',
  'too-many-fields': '{count} fields; the masks of the generated check hold 31',
  'too-many-recommended': '{count} recommended fields; the match-quality masks hold 31',
  'action-source-field': 'x-recommended actionSources needs one enum field holding {sources}',
  'recommended-in-items': 'x-recommended inside array items ({schema}) is not supported',
  'unknown-keys-allowed': 'an event schema must fail on unknown keys or drop them (x-unknown-keys)',
  'unknown-keys-request': 'only the batch body fails the whole request on unknown keys',
  'batch-request-count': 'expected one schema with x-dedup (the batch request), found {count}',
  'batch-events-field': 'the batch request must hold exactly one array of events',
  'event-time-field': 'the event needs exactly one unix-seconds field, found {count}',
  'dedup-key-not-string': 'dedup key {key} must be a string field of {schema}',
  'request-problem-missing': 'no problem "{key}" for {why}',
  'normalization-step-runtime': 'normalization step "{step}" has no runtime',
  'normalize-kind-unknown': 'unknown normalization kind {kind}',
  'identifier-holder': 'expected one field holding the x-normalize fields, found {count}',
  'deletion-target-unknown': '"{target}" is not a list of {schema}',
  'deletion-target-unmatched': 'list {target} of {schema} names no user_data field to match',
  'deletion-key-not-identifier':
    '"{field}" is no identifier of {schema}: a field with x-normalize, or one of normalization unhashed',

  // What the server, docs and client emitters need of the spec.
  'rate-limit-header-unknown': 'header {name} is no x-name of components.headers',
  'request-content-types': 'request bodies use {types}; expected one type',
  'demo-example-count': 'exactly one request example needs x-demo: true, found {count}',
  'client-request-id-pattern':
    'components.headers.RequestId needs x-client-pattern, a regular expression anchored at both ends: {problem}',
  'path-parameter-max-length': 'path parameter {name} needs a maxLength (the router bound)',
  'exclusive-maximum-number': 'number field {field} has exclusiveMaximum; use maximum',
  'alias-of-unknown': '{name} is an alias of {aliasOf}, which is no parameter of the operation',
  'events-operation-count':
    'expected one operation with x-test-mode and a request body (the events endpoint), found {count}',
  'needed-by-emitter': '{emitter} needs {what} {name}, which the spec lacks',
  'security-schemes': 'the Security page needs a cookie scheme and a header scheme (C64, C71)',
  'worked-example-invalid': 'the docs\' worked example "{value}" does not pass step {step}',
  'worked-example-step': 'the docs\' worked example does not know normalization step "{step}"',
  'worked-example-missing': 'the docs have no worked example for this normalization kind',
  'retry-after-header': 'no component header is Retry-After (rate-limits.yaml headers)',
  'success-response-count': 'an operation needs exactly one 2xx response, found {count}',
  'inline-answer-not-object': 'an admin answer written inline must be an object with properties',
  'inline-answer-member-not-primitive':
    'member {name} of an inline admin answer must be a number, string or boolean',

  // Repository checks (src/check).
  'citation-unknown': 'cites {id}, which has no record in spec/decisions{more}',
  'traceability-table': '{problems}',
  'traceability-path-missing': 'names {what}: {paths}',
} as const;

export type DiagnosticCode = keyof typeof DIAGNOSTICS;

/** The parameter names of a template: `{name}` with a bare name (so `{type: null}` is text). */
type ParamsOf<T extends string> = T extends `${string}{${infer P}}${infer Rest}`
  ? (P extends `${string}${' ' | ':'}${string}` ? never : P) | ParamsOf<Rest>
  : never;

export type DiagnosticParams<C extends DiagnosticCode> = Record<
  ParamsOf<(typeof DIAGNOSTICS)[C]>,
  string | number
>;

/** The arguments after the code: the parameters, when its template has any. */
export type DiagnosticArgs<C extends DiagnosticCode> = [ParamsOf<(typeof DIAGNOSTICS)[C]>] extends [never]
  ? []
  : [params: DiagnosticParams<C>];

/** The message of a diagnostic, its parameters filled in. */
export function diagnosticMessage(
  code: DiagnosticCode,
  params: Record<string, string | number> = {},
): string {
  return DIAGNOSTICS[code].replace(/\{([A-Za-z][A-Za-z0-9]*)\}/g, (all, name: string) =>
    name in params ? String(params[name]) : all,
  );
}
