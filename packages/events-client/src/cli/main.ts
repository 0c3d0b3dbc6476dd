import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { hash, type Io, send, validate } from './commands.js';
import { packageVersion } from './package-version.js';
import { EXIT } from './report.js';

const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

/** The `events` CLI (C58); returns the exit code. Credentials the flags leave out come from EVENTS_* variables. */
export async function main(argv: string[], io: Io): Promise<number> {
  let code: number = EXIT.ok;
  const program = new Command('events')
    .description('Validate, hash and send NDJSON files of conversion events (@org/events-client)')
    .version(packageVersion, '-v, --version')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showHelpAfterError();

  program
    .command('validate')
    .description('check every event locally with @org/events-validators; nothing is sent')
    .argument('<file>', 'NDJSON file, or - for stdin')
    .option('--json', 'print one JSON report instead of lines and a summary')
    .option('--verbose', 'print a line for every event with a problem, not only the first ones')
    .action(async (file: string, o: { json?: boolean; verbose?: boolean }) => {
      code = await validate({ file, json: o.json ?? false, verbose: o.verbose ?? false }, io);
    });

  program
    .command('send')
    .description('send every event in batches within the limits, retrying 429 and 503')
    .argument('<file>', 'NDJSON file, or - for stdin')
    .addOption(new Option('--account <id>', 'ad account id').env('EVENTS_AD_ACCOUNT_ID'))
    .addOption(new Option('--token <token>', 'conversion or OAuth token (never printed)').env('EVENTS_TOKEN'))
    .addOption(new Option('--base-url <url>', 'the service').env('EVENTS_BASE_URL').default(DEFAULT_BASE_URL))
    .option('--test', 'test mode: the service validates without storing', false)
    .option('--concurrency <n>', 'batches in flight at once', positiveInt, 4)
    .option('--max-attempts <n>', 'requests per batch at most', positiveInt)
    .option('--validate', 'check events locally first; failed ones are not sent', false)
    .option('--hash', 'normalize and hash raw user_data values before sending', false)
    .option('--json', 'print one JSON report instead of the summary')
    .action(async (file: string, o: Record<string, unknown>) => {
      if (!o.account)
        throw new CommanderError(
          EXIT.usage,
          'events.missing',
          'error: --account or EVENTS_AD_ACCOUNT_ID is required',
        );
      if (!o.token)
        throw new CommanderError(EXIT.usage, 'events.missing', 'error: --token or EVENTS_TOKEN is required');
      code = await send(
        {
          file,
          account: String(o.account),
          token: String(o.token),
          baseUrl: String(o.baseUrl),
          test: o.test === true,
          concurrency: o.concurrency as number,
          validate: o.validate === true,
          hash: o.hash === true,
          json: o.json === true,
          ...(o.maxAttempts ? { maxAttempts: o.maxAttempts as number } : {}),
        },
        io,
      );
    });

  program
    .command('hash')
    .description('raw user data in (or events holding it), normalized and SHA-256 hashed out, as NDJSON')
    .argument('[file]', 'NDJSON file, or - for stdin', '-')
    .action(async (file: string) => {
      code = await hash({ file }, io);
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (
        e.code === 'commander.helpDisplayed' ||
        e.code === 'commander.version' ||
        e.code === 'commander.help'
      )
        return EXIT.ok;
      if (e.code === 'events.missing') io.err(`${e.message}\n`);
      return EXIT.usage;
    }
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT') {
      io.err(`error: no such file: ${err.path}\n`);
      return EXIT.usage;
    }
    throw e;
  }
  return code;
}
