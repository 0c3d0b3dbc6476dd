/** One problem of a config: where (file, line, path) and what is wrong. */
export interface ConfigIssue {
  /** Path inside the config, as segments: ['tokens', 1, 'app']. */
  path: (string | number)[];
  problem: string;
  line?: number;
  column?: number;
}

export function formatPath(path: readonly (string | number)[]): string {
  if (path.length === 0) return '(top level)';
  return path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

/** A config that fails validation at start (issue point 4): names the file, each path and its problem. */
export class ConfigError extends Error {
  readonly file: string;
  readonly issues: ConfigIssue[];

  constructor(file: string, issues: ConfigIssue[]) {
    const lines = issues.map((i) => {
      const where = i.line !== undefined ? `${file}:${i.line}:${i.column ?? 1}` : file;
      return `  ${where} ${formatPath(i.path)}: ${i.problem}`;
    });
    super(
      `invalid config ${file} (${issues.length} problem${issues.length === 1 ? '' : 's'}):\n${lines.join('\n')}`,
    );
    this.name = 'ConfigError';
    this.file = file;
    this.issues = issues;
  }
}
