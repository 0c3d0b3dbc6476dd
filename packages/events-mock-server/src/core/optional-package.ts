/**
 * pg and ioredis are optional peer dependencies (C95): an integrator who runs the SQLite default in CI does
 * not install or compile them. A store or limits URL that needs one loads it through here, so a missing
 * package stops the start with the one line that fixes it instead of Node's module-resolution trace.
 */
export async function loadOptional<T>(load: () => Promise<T>, pkg: string, needs: string): Promise<T> {
  try {
    return await load();
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ERR_MODULE_NOT_FOUND' && err.message.includes(`'${pkg}'`))
      throw new Error(
        `${needs} needs the package ${pkg}, which is not installed: run npm install ${pkg} (it is an optional peer dependency of @org/events-mock-server)`,
      );
    throw e;
  }
}
