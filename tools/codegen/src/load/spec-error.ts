import { type DiagnosticArgs, type DiagnosticCode, diagnosticMessage } from './diagnostics.js';

/**
 * A problem in spec/: names the file, the path inside it (or the line), the diagnostic's code and what is
 * wrong, so `pnpm gen` can say exactly that and a maintainer can look the code up (tools/codegen/README.md).
 */
export class SpecError<C extends DiagnosticCode = DiagnosticCode> extends Error {
  readonly problem: string;
  readonly params: Readonly<Record<string, string | number>>;

  constructor(
    readonly file: string,
    readonly path: string,
    readonly code: C,
    ...args: DiagnosticArgs<C>
  ) {
    const params: Record<string, string | number> = args[0] ?? {};
    const problem = diagnosticMessage(code, params);
    super(`${file}: ${path || '(root)'}: ${problem} [${code}]`);
    this.name = 'SpecError';
    this.problem = problem;
    this.params = params;
  }
}
