import type { DiagnosticArgs, DiagnosticCode } from './diagnostics.js';
import { SpecError } from './spec-error.js';

/** Typed access into parsed YAML that fails with the file and the path of the offending node. */
export class Reader {
  constructor(
    readonly file: string,
    readonly value: unknown,
    readonly path: string = '',
  ) {}

  at(key: string | number): Reader {
    const next = typeof key === 'number' ? `${this.path}[${key}]` : this.path ? `${this.path}.${key}` : key;
    const obj = this.value as Record<string | number, unknown> | undefined;
    return new Reader(this.file, obj == null ? undefined : obj[key], next);
  }

  /** Reports the diagnostic `code` at this node: its file and path. */
  fail<C extends DiagnosticCode>(code: C, ...args: DiagnosticArgs<C>): never {
    throw new SpecError(this.file, this.path, code, ...args);
  }

  get present(): boolean {
    return this.value !== undefined && this.value !== null;
  }

  private describe(): string {
    if (this.value === undefined) return 'nothing';
    if (this.value === null) return 'null';
    if (Array.isArray(this.value)) return 'an array';
    return `${typeof this.value} ${JSON.stringify(this.value).slice(0, 40)}`;
  }

  string(): string {
    if (typeof this.value !== 'string') this.fail('expected-string', { found: this.describe() });
    return this.value;
  }

  optString(): string | undefined {
    return this.present ? this.string() : undefined;
  }

  stringOrNull(): string | null {
    return this.value === null ? null : this.string();
  }

  number(): number {
    if (typeof this.value !== 'number' || !Number.isFinite(this.value))
      this.fail('expected-number', { found: this.describe() });
    return this.value;
  }

  integer(): number {
    const n = this.number();
    if (!Number.isInteger(n)) this.fail('expected-integer', { found: n });
    return n;
  }

  optNumber(): number | undefined {
    return this.value === undefined ? undefined : this.number();
  }

  boolean(): boolean {
    if (typeof this.value !== 'boolean') this.fail('expected-boolean', { found: this.describe() });
    return this.value;
  }

  oneOf<T extends string>(allowed: readonly T[]): T {
    const s = this.string();
    if (!(allowed as readonly string[]).includes(s))
      this.fail('expected-one-of', { allowed: allowed.join(', '), found: s });
    return s as T;
  }

  array(): Reader[] {
    if (!Array.isArray(this.value)) this.fail('expected-list', { found: this.describe() });
    return this.value.map((_, i) => this.at(i));
  }

  optArray(): Reader[] {
    return this.present ? this.array() : [];
  }

  strings(): string[] {
    return this.array().map((r) => r.string());
  }

  object(): Record<string, unknown> {
    if (typeof this.value !== 'object' || this.value === null || Array.isArray(this.value))
      this.fail('expected-mapping', { found: this.describe() });
    return this.value as Record<string, unknown>;
  }

  entries(): [string, Reader][] {
    return Object.keys(this.object()).map((k) => [k, this.at(k)]);
  }

  regex(): string {
    const s = this.string();
    try {
      new RegExp(s, 'u');
    } catch (e) {
      this.fail('invalid-regex', { detail: (e as Error).message });
    }
    return s;
  }
}
