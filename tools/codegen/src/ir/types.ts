/**
 * The IR: plain typed data built from spec/ (openapi.yaml + data/*.yaml). Emitters are pure functions of it.
 * Everything is sorted where order carries no meaning, so output is deterministic.
 */

export type Severity = 'failed' | 'warning';

/** A limit of spec/data/limits.yaml, resolved: rules keep the key so docs can name it. */
export interface LimitRef {
  key: string;
  value: number;
  /** C87: what a string over a maxLength limit gets: the event fails, or the value is dropped with a warning. */
  overflow: 'fail' | 'drop';
}

export interface LimitIR {
  key: string;
  value: number;
  unit: 'count' | 'bytes' | 'characters' | 'seconds' | 'milliseconds' | 'decimal';
  description: string;
  source: string;
  overflow: 'fail' | 'drop';
}

export type TypeIR =
  | { kind: 'primitive'; name: 'string' | 'integer' | 'number' | 'boolean' }
  | { kind: 'array'; items: TypeIR }
  | { kind: 'ref'; name: string; target: 'object' | 'enum' };

/**
 * What every rule has: the kind selects its module (src/rules/<kind>.ts) and the runtime that checks it, the
 * severity its message codes.
 */
export interface RuleBase {
  kind: string;
  severity: Severity | 'request';
}

/** A rule of a kind that has no parameter. */
export interface BareRule<K extends string, S extends RuleBase['severity']> {
  kind: K;
  severity: S;
}

// The rule of each kind: its parameters as the IR holds them. The kind's module (src/rules/<kind>.ts) reads,
// checks and documents it; RULE_KINDS (src/rules/index.ts) has a module for each and refuses any other kind.

/** C23: `field` of the object property `in` is kept only when it equals `with`, which is none of `except`. */
export interface AgreesWithRule {
  kind: 'agrees-with';
  severity: 'warning';
  in: string;
  field: string;
  with: string;
  except: string[];
}

export interface BoundsRule {
  kind: 'bounds';
  severity: 'failed';
  minLength?: number;
  maxLength?: LimitRef | number;
  minItems?: LimitRef | number;
  maxItems?: LimitRef | number;
  minimum?: number;
  maximum?: number;
  exclusiveMaximum?: number;
}

export interface CodeListRule {
  kind: 'code-list';
  severity: Severity;
  list: 'currencies' | 'languages';
  case: 'upper' | 'lower';
}

export interface DecimalStringRule {
  kind: 'decimal-string';
  severity: 'failed';
  exclusiveMinimum?: number;
  minimum?: number;
  maximum?: LimitRef;
}

export interface DedupRule {
  kind: 'dedup';
  severity: 'warning';
  key: string[];
  window: LimitRef;
}

export interface DefaultFromContextRule {
  kind: 'default-from-context';
  severity: 'warning';
  field: string;
  when: string;
  context: 'currency';
}

export interface EnumRule {
  kind: 'enum';
  severity: 'failed';
  enum: string;
  values: string[];
  caseInsensitive: boolean;
}

export type EventNameRule = BareRule<'event-name', 'failed'>;

export interface IdsInItemsRule {
  kind: 'ids-in-items';
  severity: 'warning';
  ids: string;
  items: string;
  key: string;
}

export type IpAddressRule = BareRule<'ip-address', 'warning'>;

export interface PatternRule {
  kind: 'pattern';
  severity: Severity;
  pattern: string;
}

/**
 * C86, C120: `in.field`, a decimal string, must be greater than 0 on the events of a group (a zero fails the
 * event); on every other event a zero is processed, with a warning when `elsewhere` is `warning` (C120) or
 * without one when it is `accepted` (C86 before C120).
 */
export interface PositiveForEventsRule {
  kind: 'positive-for-events';
  severity: 'failed';
  in: string;
  field: string;
  group: string;
  eventNames: string[];
  elsewhere: 'warning' | 'accepted';
}

export type RecommendedFieldsRule = BareRule<'recommended-fields', 'warning'>;

export interface RequireAnyOfRule {
  kind: 'require-any-of';
  severity: 'failed';
  alternatives: string[][];
}

export type RequiredRule = BareRule<'required', 'failed'>;

export type Sha256HexRule = BareRule<'sha256-hex', 'warning'>;

export interface TypeRule {
  kind: 'type';
  severity: 'failed';
  expected: TypeIR;
  nullable: boolean;
}

export interface UnixSecondsRule {
  kind: 'unix-seconds';
  severity: 'failed';
  maxAge: LimitRef;
  maxFuture: LimitRef;
  milliseconds: LimitRef;
}

export interface UnknownKeysRule {
  kind: 'unknown-keys';
  severity: Severity | 'request';
}

export interface UrlRule {
  kind: 'url';
  severity: 'failed';
  schemes: string[];
}

export type UserAgentRule = BareRule<'user-agent', 'warning'>;

/** One rule on a field, an array item, an object or a batch: the rule of one of the kinds above. */
export type RuleIR =
  | AgreesWithRule
  | BoundsRule
  | CodeListRule
  | DecimalStringRule
  | DedupRule
  | DefaultFromContextRule
  | EnumRule
  | EventNameRule
  | IdsInItemsRule
  | IpAddressRule
  | PatternRule
  | PositiveForEventsRule
  | RecommendedFieldsRule
  | RequireAnyOfRule
  | RequiredRule
  | Sha256HexRule
  | TypeRule
  | UnixSecondsRule
  | UnknownKeysRule
  | UrlRule
  | UserAgentRule;

export type RuleKind = RuleIR['kind'];

export interface RecommendedIR {
  /** Action sources the field is recommended for; 'all' for every one. */
  actionSources: string[] | 'all';
  /** Event names it is recommended for (groups resolved); null for every name. */
  eventNames: string[] | null;
  /** C88: how much the field raises match quality (1 when the spec gives none); ranks the advice. */
  weight: number;
}

export interface FieldIR {
  name: string;
  description: string;
  type: TypeIR;
  required: boolean;
  nullable: boolean;
  /** Rules on the field value, in evaluation order (type first). */
  rules: RuleIR[];
  /** For arrays: rules on each item. */
  itemRules: RuleIR[];
  /** What to send, for messages ("a unique non-empty string ..."). */
  expected: string;
  example?: unknown;
  recommended?: RecommendedIR;
  /** C5 normalization kind for hashed user_data fields. */
  normalize?: string;
  /** Where the field comes from when it is not in the seed ('pinterest'). */
  source?: string;
}

export interface SchemaIR {
  name: string;
  description: string;
  fields: FieldIR[];
  /** What an unknown key does: fail the event, warn and drop, fail the request, or nothing. */
  unknownKeys: Severity | 'request' | 'allow';
  /** Object-level rules (cross-field), in evaluation order. */
  rules: RuleIR[];
  source?: string;
}

export interface EnumIR {
  name: string;
  description: string;
  values: string[];
}

export interface ParameterIR {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description: string;
  type: TypeIR;
  enum?: string[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMaximum?: number;
  maxLength?: number;
  /** `x-alias-of`: another name of that parameter (seed 4.1 rule 3); both given must agree. */
  aliasOf?: string;
  default?: string | number | boolean;
}

export interface OperationIR {
  operationId: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  summary: string;
  description: string;
  tag: string;
  parameters: ParameterIR[];
  requestBody?: string;
  responses: { status: string; description: string; schema?: string }[];
  /**
   * Security alternatives: each is a scheme name and its scopes, and `with` the schemes that must come with
   * it (an alternative of several schemes, C71). Empty for public endpoints.
   */
  security: { scheme: string; scopes: string[]; with?: string[] }[];
  rateLimitCategory?: string;
  testMode: boolean;
  /** `x-faults`: injected faults (C65) answer on this endpoint, after authorization and before its rate limit. */
  faults: boolean;
  /** `x-login-throttle`: the wrong-login throttle of C71 is this endpoint's rate-limit row. */
  loginThrottle: boolean;
}

export interface SecuritySchemeIR {
  name: string;
  type: string;
  scheme?: string;
  /** Of an apiKey scheme: the header, query parameter or cookie that carries it. */
  parameter?: { in: string; name: string };
  description: string;
  scopes: Record<string, string>;
}

export interface StandardEventNameIR {
  name: string;
  tagName: string | null;
  purpose: string;
  usableFor: string[];
  /** Where a name that is not in the seed's table comes from (C20); absent for the seed's own names. */
  source?: string;
}

export interface EventNamesIR {
  standard: StandardEventNameIR[];
  groups: Record<string, string[]>;
  custom: {
    pattern: string;
    maxLength: LimitRef;
    maxPerAccount: LimitRef;
    caseInsensitive: boolean;
    usableFor: string[];
  };
  suggestedExamples: string[];
  suggestionMaxDistance: number;
}

export interface RateLimitWindowIR {
  limit: number;
  window: number;
  per: string[];
  unit?: string;
}

export interface RateLimitsIR {
  universal: { description: string; trial: RateLimitWindowIR; standard: RateLimitWindowIR };
  testRequests: RateLimitWindowIR & { description: string };
  conversionToken: { description: string; unlimited: boolean };
  categories: {
    name: string;
    scope: string;
    appliesTo?: string;
    /** C89: the name the limit header gives this category, when not its own name. */
    headerName?: string;
    trial: RateLimitWindowIR;
    standard: RateLimitWindowIR;
  }[];
  /** C89: template of the limit header's value: {limit}, {window}, {name}. */
  limitHeaderValue: string;
  headers: { limit: string; remaining: string; reset: string; retryAfter: string };
}

export interface MessageIR {
  code: string;
  kind: string;
  severity: Severity;
  template: string;
  /** Parameter names used by the template, sorted. */
  params: string[];
  description: string;
  /** Texts of the `{reason}` parameter, one per case the rule kind tells apart, sorted by key. */
  reasons?: { key: string; template: string; params: string[] }[];
  /** The warning removes the value at its path from the event; the request log never keeps it (C70). */
  drops?: true;
}

export interface RequestErrorIR {
  key: string;
  status: number;
  code: number;
  message: string;
  when: string;
  fix: string;
}

export interface RequestProblemIR {
  key: string;
  error: string;
  template: string;
  params: string[];
}

export interface CodeEntryIR {
  code: string;
  name: string;
}

export interface NamedCodeIR extends CodeEntryIR {
  aliases: string[];
  country?: string;
}

export interface NormalizationIR {
  kinds: { name: string; steps: string[]; description: string }[];
  dateFormats: { pattern: string; order: ('year' | 'month' | 'day')[] }[];
  gender: Record<string, string[]>;
  zipFirstFiveDigits: string[];
  unhashed: string[];
  /** C117: words of a member name that make it personal data where the service knows no member. */
  personalMemberWords: string[];
  userAgent: {
    rejectValues: string[];
    productToken: string;
    /** C22: items the system comment of a user agent must name, and what separates them. */
    systemItemsMin: number;
    systemSeparator: string;
    /** C85: product names that name no browser or app (`Mozilla`); a user agent needs another product. */
    compatibilityProducts: string[];
    botPatterns: string[];
  };
}

/**
 * C91, C124: a list of a conversion deletion request's targets and the user_data field its entries are
 * matched against (normalization.yaml `deletionKeys`).
 */
export interface DeletionKeyIR {
  /** The list of `deletion_targets` (`user_emails`). */
  target: string;
  /** The user_data field (`em`). */
  field: string;
  /** The field holds SHA-256 digests (it has x-normalize): entries are matched as digests. */
  hashed: boolean;
}

/** One record of spec/decisions: why the service behaves as it does where the seed is silent. */
export interface DecisionIR {
  /** `C` and a number, as cited in code, tests and docs. */
  id: string;
  title: string;
  status: 'accepted' | 'superseded';
  /** YYYY-MM-DD of the decision or of its last amendment. */
  date: string;
  /** Where the question came from (free text). */
  source: string;
  /** Seed sections the record settles, as written in the seed ("2.1", "4.1 r3"). */
  seed: string[];
  supersededBy?: string;
  /** Markdown of the `## Decision` and `## Reason` sections. */
  decision: string;
  reason: string;
  /** The record's file, relative to the spec folder's parent (for messages). */
  file: string;
}

/** One known divergence from Pinterest's public API (spec/data/differences.yaml). */
export interface DifferenceIR {
  topic: string;
  pinterest: string;
  service: string;
  reason: string;
  /** Decision ids behind the choice; each has a record. */
  decisions: string[];
  /** Where Pinterest's behaviour is documented or observed. */
  evidence: string;
}

export interface IR {
  info: { title: string; version: string; summary: string; description: string };
  schemas: SchemaIR[];
  enums: EnumIR[];
  operations: OperationIR[];
  securitySchemes: SecuritySchemeIR[];
  eventNames: EventNamesIR;
  limits: LimitIR[];
  rateLimits: RateLimitsIR;
  messages: MessageIR[];
  /** C3: how the messages of one event are joined, and what says how many were left out. */
  messageJoin: { separator: string; overflow: string };
  /** C21: words naming the shape of a value that must not be quoted (messages.yaml `shapes`). */
  valueShapes: Record<string, string>;
  requestErrors: RequestErrorIR[];
  requestProblems: RequestProblemIR[];
  codeLists: {
    currencies: CodeEntryIR[];
    languages: CodeEntryIR[];
    countries: NamedCodeIR[];
    regions: NamedCodeIR[];
  };
  normalization: NormalizationIR;
  /** C91, C124: what a conversion deletion request matches, in the order of the data file. */
  deletionKeys: DeletionKeyIR[];
  /** The decision records, by number (C1, C2, ... C10). */
  decisions: DecisionIR[];
  /** Known divergences from Pinterest's API, in the order of the data file. */
  differences: DifferenceIR[];
  /** The OpenAPI document with x-limits and x-enum-from resolved into keywords (for ajv, renderers, docs). */
  openapi: Record<string, unknown>;
  /** The files the IR was read from, as errors name them: openapi.yaml and each data file by its x-data key. */
  files: { openapi: string; data: Record<string, string> };
}
