import { LIMITS, MESSAGE_JOIN, PROBLEM_CODES, type ProblemCode } from '@org/events-types';

/** One problem of one event (C3, C4). `path` names the field, relative to the event (`''` is the event). */
export interface Problem {
  path: string;
  code: ProblemCode;
  message: string;
}

/** Every problem of one event, uncapped: `errors` fail it, `warnings` only drop values (C4). */
export interface EventProblems {
  errors: Problem[];
  warnings: Problem[];
}

/** Parameters of a message template: `{name}` in the template; an undefined one counts as not given. */
export type MessageParams = Readonly<Record<string, string | number | undefined>>;

// ---------------------------------------------------------------------------------------------------------
// Templates: `{param}` is replaced; `[[ ... ]]` is kept only when every parameter inside it is given.
// Templates are parsed once, at module load, into parts; rendering is a loop of concatenations.

type Part = string | { param: string } | { optional: Part[] };

function parse(template: string): Part[] {
  const parts: Part[] = [];
  let k = 0;
  while (k < template.length) {
    const open = template.indexOf('[[', k);
    const brace = template.indexOf('{', k);
    if (open >= 0 && (brace < 0 || open < brace)) {
      if (open > k) parts.push(template.slice(k, open));
      const close = template.indexOf(']]', open + 2);
      const end = close < 0 ? template.length : close;
      parts.push({ optional: parse(template.slice(open + 2, end)) });
      k = close < 0 ? end : end + 2;
    } else if (brace >= 0) {
      const close = template.indexOf('}', brace);
      if (close < 0) {
        parts.push(template.slice(k));
        break;
      }
      if (brace > k) parts.push(template.slice(k, brace));
      parts.push({ param: template.slice(brace + 1, close) });
      k = close + 1;
    } else {
      parts.push(template.slice(k));
      break;
    }
  }
  return parts;
}

const COMPILED = new Map<string, Part[]>();
for (const [code, m] of Object.entries(PROBLEM_CODES)) COMPILED.set(code, parse(m.template));

function allGiven(parts: Part[], params: MessageParams): boolean {
  for (const p of parts) {
    if (typeof p === 'string') continue;
    if ('param' in p) {
      if (params[p.param] === undefined) return false;
    } else if (!allGiven(p.optional, params)) return false;
  }
  return true;
}

function render(parts: Part[], params: MessageParams): string {
  let s = '';
  for (const p of parts) {
    if (typeof p === 'string') s += p;
    else if ('param' in p) {
      const v = params[p.param];
      // A missing parameter outside an optional part stays visible rather than vanishing silently.
      s += v === undefined ? `{${p.param}}` : String(v);
    } else if (allGiven(p.optional, params)) s += render(p.optional, params);
  }
  return s;
}

/** Renders the template of a problem code (spec/data/messages.yaml) with its parameters. */
export function formatMessage(code: ProblemCode, params: MessageParams): string {
  const parts = COMPILED.get(code);
  if (parts === undefined) throw new RangeError(`unknown problem code ${JSON.stringify(code)}`);
  return render(parts, params);
}

const PARSED = new Map<string, Part[]>();

/** Renders a request-level template (REQUEST_PROBLEMS); same syntax. Templates are few: each is parsed once. */
export function formatTemplate(template: string, params: MessageParams): string {
  let parts = PARSED.get(template);
  if (parts === undefined) {
    if (PARSED.size >= 1024) PARSED.clear();
    parts = parse(template);
    PARSED.set(template, parts);
  }
  return render(parts, params);
}

// ---------------------------------------------------------------------------------------------------------
// Paths and received values (C3).

/**
 * Path of a field, built only when a problem is reported: `p` is the object's path, `i` its index in an
 * array (-1 when it is not an item), `name` the field ('' for the object itself), `j` the index of an item
 * of that field (-1 for the field itself). `pathOf('custom_data.contents', 1, 'item_price', -1)` is
 * `custom_data.contents[1].item_price`.
 */
export function pathOf(p: string, i: number, name: string, j: number): string {
  let s = i < 0 ? p : `${p}[${i}]`;
  if (name !== '') s = s === '' ? name : `${s}.${name}`;
  return j < 0 ? s : `${s}[${j}]`;
}

const MAX_CHARS = LIMITS.received_value_max_chars.value;

/** Cuts a text to LIMITS.received_value_max_chars, ending with `…` when cut, never inside a surrogate pair. */
export function cut(s: string): string {
  if (s.length <= MAX_CHARS) return s;
  let end = MAX_CHARS - 1;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return `${s.slice(0, end)}…`;
}

/** JSON type of a value in words (for values JSON cannot quote). */
export function describeType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  switch (typeof v) {
    case 'string':
      return 'a string';
    case 'number':
      return Number.isInteger(v) ? 'an integer' : 'a number';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object':
      return 'an object';
    default:
      return typeof v;
  }
}

function json(v: unknown): string {
  if (v === undefined) return 'undefined';
  // Only the start of a long string can be shown: quote no more than that.
  if (typeof v === 'string' && v.length > MAX_CHARS) return JSON.stringify(v.slice(0, MAX_CHARS));
  if (typeof v === 'number') return String(v);
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'function' || typeof v === 'symbol') return typeof v;
  try {
    return JSON.stringify(v) ?? describeType(v);
  } catch {
    return describeType(v);
  }
}

/** What was received, as quoted JSON cut to LIMITS.received_value_max_chars (C3). */
export function received(v: unknown): string {
  return cut(json(v));
}

// ---------------------------------------------------------------------------------------------------------
// Reporting: severity comes from PROBLEM_CODES (the spec), never from the caller.

const FAILS = new Set<string>();
for (const [code, m] of Object.entries(PROBLEM_CODES)) if (m.severity === 'failed') FAILS.add(code);

/** Adds a problem whose message is already rendered (or cached); the spec's severity picks the list. */
export function addProblem(o: EventProblems, code: ProblemCode, path: string, message: string): void {
  const problem: Problem = { path, code, message };
  if (FAILS.has(code)) o.errors.push(problem);
  else o.warnings.push(problem);
}

/** Adds a problem; `path` is a parameter of every per-event template that names a field. */
export function report(o: EventProblems, code: ProblemCode, path: string, params: MessageParams): void {
  addProblem(o, code, path, formatMessage(code, params));
}

/**
 * The last problems one rule reported, each keyed by four values compared with `===` (the object path, its
 * index, the field or key, and one more: a reason, an item index, the schema's key list): a batch repeats
 * the same warning event after event (an unknown `user_data` key dropped, one unusable user agent), and a repeat then
 * compares a few references and builds nothing, not even the path. Keys are references the generated code
 * and the runtime hand over unchanged (path constants, keys of the parsed object, cached reasons); a key
 * equal in content but held by another string still hits, after a string compare.
 */
export class RecentProblems {
  private readonly entries: {
    p: string;
    i: number;
    a: unknown;
    b: unknown;
    code: ProblemCode;
    path: string;
    message: string;
    fails: boolean;
  }[] = [];
  private next = 0;

  /** Adds the remembered problem for this key to `o` and returns true, or returns false (nothing added). */
  add(o: EventProblems, p: string, i: number, a: unknown, b: unknown): boolean {
    const entries = this.entries;
    for (let k = 0; k < entries.length; k++) {
      const e = entries[k]!;
      if (e.a === a && e.b === b && e.i === i && e.p === p) {
        const problem: Problem = { path: e.path, code: e.code, message: e.message };
        if (e.fails) o.errors.push(problem);
        else o.warnings.push(problem);
        return true;
      }
    }
    return false;
  }

  /** Remembers a problem (the oldest of RECENT_PROBLEMS entries makes room) and adds it to `o`. */
  remember(
    o: EventProblems,
    p: string,
    i: number,
    a: unknown,
    b: unknown,
    code: ProblemCode,
    path: string,
    message: string,
  ): void {
    const e = { p, i, a, b, code, path, message, fails: FAILS.has(code) };
    if (this.entries.length < RECENT_PROBLEMS) this.entries.push(e);
    else {
      this.entries[this.next] = e;
      this.next = (this.next + 1) % RECENT_PROBLEMS;
    }
    addProblem(o, code, path, message);
  }
}

/** Problems each RecentProblems keeps: a batch mixes a few shapes of events, each with its own warnings. */
const RECENT_PROBLEMS = 8;

/**
 * A small cache of rendered messages for problems that depend on their code and path alone (an unknown
 * `user_data` key dropped, a raw value in `user_data.em[0]`): a batch repeats them event after event.
 */
export class MessageCache {
  private readonly messages = new Map<string, string>();
  get(key: string): string | undefined {
    return this.messages.get(key);
  }
  set(key: string, message: string): string {
    if (this.messages.size >= 1024) this.messages.clear();
    this.messages.set(key, message);
    return message;
  }
}

/**
 * Rendered messages keyed by a path and one more string (a reason, a received value): a batch repeats the
 * same dropped user agent or code event after event. Two map levels, so a repeat builds no key string;
 * at most 1024 messages are kept, and keys longer than 256 characters are not kept at all.
 */
export class MessageCache2 {
  private readonly messages = new Map<string, Map<string, string>>();
  private size = 0;
  get(path: string, key: string): string | undefined {
    return this.messages.get(path)?.get(key);
  }
  set(path: string, key: string, message: string): string {
    if (key.length > 256) return message;
    if (this.size >= 1024) {
      this.messages.clear();
      this.size = 0;
    }
    let byKey = this.messages.get(path);
    if (byKey === undefined) {
      byKey = new Map();
      this.messages.set(path, byKey);
    }
    byKey.set(key, message);
    this.size++;
    return message;
  }
}

// ---------------------------------------------------------------------------------------------------------
// C3: messages of one event joined with "; ", at most LIMITS.messages_max_per_event, null when none.

const MAX_MESSAGES = LIMITS.messages_max_per_event.value;
const SEPARATOR = MESSAGE_JOIN.separator;
const OVERFLOW = parse(MESSAGE_JOIN.overflow);

/**
 * Joins the messages of one kind (errors or warnings) of one event: `null` when there are none; at most
 * LIMITS.messages_max_per_event messages, then MESSAGE_JOIN.overflow (`and N more`) says how many were left
 * out (C3).
 */
export function joinMessages(problems: readonly Problem[]): string | null {
  const n = problems.length;
  if (n === 0) return null;
  let s = problems[0]!.message;
  const shown = Math.min(n, MAX_MESSAGES);
  for (let k = 1; k < shown; k++) s += SEPARATOR + problems[k]!.message;
  if (n > shown) s += SEPARATOR + render(OVERFLOW, { count: n - shown });
  return s;
}
