import type { LimitRef, TypeIR } from '../ir/types.js';
import { quote } from './literal.js';

/** Indents every line of a block of code by two spaces. */
export function indent(lines: string[]): string[] {
  return lines.map((l) => (l === '' ? l : `  ${l}`));
}

/** `{ ... }` around statements, or the statements alone when there is nothing to scope. */
export function block(head: string, body: string[]): string[] {
  return [`${head}{`, ...indent(body), '}'];
}

/** A regular-expression literal for a spec pattern (validated here, so a bad pattern fails `pnpm gen`). */
export function regexLiteral(source: string, flags = ''): string {
  new RegExp(source, flags);
  let out = '';
  for (let k = 0; k < source.length; k++) {
    const ch = source[k]!;
    if (ch === '\\') {
      out += ch + (source[k + 1] ?? '');
      k++;
    } else out += ch === '/' ? '\\/' : ch;
  }
  return `/${out}/${flags}`;
}

/** A literal string as a regular-expression alternative. */
export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

export function limitValue(v: LimitRef | number): number {
  return typeof v === 'number' ? v : v.value;
}

/** What an array item must be, in words, for invalid_type messages on items. */
export function describeItem(t: TypeIR, enumValues?: string[]): string {
  switch (t.kind) {
    case 'primitive':
      return { string: 'a string', integer: 'an integer', number: 'a number', boolean: 'true or false' }[
        t.name
      ];
    case 'array':
      return 'an array';
    case 'ref':
      return t.target === 'object'
        ? 'an object'
        : `one of ${(enumValues ?? []).map((v) => JSON.stringify(v)).join(', ')}`;
  }
}

export { quote };

/** `true`, a lower-case `or` list: ["http", "https"] -> "http or https". */
export function orList(words: string[]): string {
  return words.length <= 1
    ? words.join('')
    : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

/** PascalCase of a snake_case or kebab-case name. */
export function pascal(s: string): string {
  return s.replace(/(^|[_-])([a-z0-9])/g, (_, _sep, c: string) => c.toUpperCase());
}

/** camelCase of a snake_case name. */
export function camel(s: string): string {
  const p = pascal(s);
  return p.charAt(0).toLowerCase() + p.slice(1);
}
