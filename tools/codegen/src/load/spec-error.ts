/** A problem in spec/: names the file, the path inside it and what is wrong, so `pnpm gen` can say exactly that. */
export class SpecError extends Error {
  constructor(
    readonly file: string,
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${file}: ${path || '(root)'}: ${problem}`);
    this.name = 'SpecError';
  }
}
