import type { IR, RuleBase, SchemaIR, Severity } from '../ir/types.js';
import type { FileScope } from '../kit/scope.js';
import type { Site } from '../kit/site.js';
import type { Reader } from '../load/reader.js';
import type { SchemaContext } from './context.js';

/** Where the generated check of a rule stands, with what the emitter knows there. */
export interface EmitAt {
  ir: IR;
  scope: FileScope;
}

/** What the docs know where a rule's words stand (their page context has it). */
export interface DocAt {
  ir: IR;
}

interface Common<R extends RuleBase> {
  /** The message codes the kind may answer with; each has a template of this kind in messages.yaml. */
  codes: readonly string[];
  /** The `{reason}` cases a code of the kind tells apart; messages.yaml has a text for each. */
  reasons?: Readonly<Record<string, readonly string[]>>;
  /**
   * For kinds an `x-rules` entry names: the entry's parameters besides `kind`, and the rule read from them.
   * Kinds without it come from OpenAPI keywords or another extension, read by the schema walker.
   */
  parse?: { params: readonly string[]; read(r: Reader, ctx: SchemaContext): R };
  /** What the rule checks, in words, for the docs' field tables; undefined when the columns already say it. */
  doc(r: R, at: DocAt): string | undefined;
  /**
   * What the rule checks, in one plain sentence for the JSDoc of the generated types (an editor's hover);
   * undefined when the type already says it, and for object kinds (the types document fields).
   */
  summary(r: R): string | undefined;
  /** Of the kind's codes at the rule's severity, whether this rule can answer with `code` (docs). */
  answers?(r: R, code: string): boolean;
  /**
   * The severities of the kind's codes the rule answers with, when not only its own: a rule that fails some
   * events and warns on others (`positive-for-events`, C120). The docs list its codes of each.
   */
  severities?(r: R): readonly Severity[];
}

/** A kind checking one value: of a field, or (`value`) also of each item of an array field. */
export interface ValueKind<R extends RuleBase> extends Common<R> {
  place: 'value' | 'field';
  /** Statements checking the value at `site`, whose JSON type is already right. */
  code(r: R, site: Site, at: EmitAt): string[];
  /** Whether the rule may drop or replace the value, so the accepted array needs copy-on-write. */
  mayChange?(r: R): boolean;
}

/** A kind checking an object after its fields (cross-field rules). */
export interface ObjectKind<R extends RuleBase> extends Common<R> {
  place: 'object';
  /** Statements checking the accepted object `t` of `schema`. */
  code(r: R, schema: SchemaIR, at: EmitAt): string[];
  /** The properties of the object the rule names; gen fails on one the object lacks. */
  names?(r: R): string[];
}

/** One rule kind: how it is read from the spec, the check the validators get, and its words in the docs. */
export type RuleKindModule<R extends RuleBase> = ValueKind<R> | ObjectKind<R>;

/** The parse of a kind whose x-rules entry has no parameter: every rule of it is the same. */
export function noParams<R extends RuleBase>(rule: R): NonNullable<Common<R>['parse']> {
  return { params: [], read: () => ({ ...rule }) };
}

/** The string parameters `names` of an x-rules entry, by name. */
export function stringParams<K extends string>(r: Reader, names: readonly K[]): Record<K, string> {
  return Object.fromEntries(names.map((n) => [n, r.at(n).string()])) as Record<K, string>;
}
