import { isIP } from 'node:net';
import { ACCESS_TIERS, CURRENCY_CODES, LIMITS, SECURITY_SCHEMES } from '@org/events-types';
import { z } from 'zod';
import { credentialsProblem, hasCredentials, withoutCredentials } from '../delivery/sink-url.js';
import { ROUTES } from '../generated/routes.gen.js';
import { parseLimitsUrl } from '../ratelimit/open-limiter.js';
import { REQUEST_LOG_BODIES } from '../requestlog/request-log.js';
import { parseStoreUrl } from '../store/store-url.js';

/**
 * The shape of a config file (C8 and the server options), as a zod schema: types, patterns, enums and
 * defaults. What one value cannot say alone (unique ids, references between sections, token or its hash)
 * is the short cross-reference pass of validate.ts. Enum values come from the spec's generated constants.
 */

/** An integer from `min` (1 unless given) to `max`. */
function positive(max: number, min = 1) {
  const error = missingOr(`must be an integer from ${min} to ${max}`);
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}

const AD_ACCOUNT_ID = new RegExp(ROUTES['events/create'].pathParams.ad_account_id.pattern);
const SCOPES = Object.keys(SECURITY_SCHEMES.find((s) => s.name === 'oauth2')?.scopes ?? {}) as [
  string,
  ...string[],
];
const CURRENCIES = new Set<string>(CURRENCY_CODES);
export const SYNC_LEVELS = ['FULL', 'EXTRA', 'NORMAL'] as const;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** A plaintext token: no whitespace (it travels in a header) and long enough not to be guessed. */
const TOKEN = /^[\x21-\x7e]{16,512}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** How a received value is named in a problem: short, and never a whole secret. */
export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  return `${typeof v} ${String(v)}`;
}

const missingOr =
  (problem: string, missing = 'is missing') =>
  (iss: { input?: unknown }) =>
    iss.input === undefined ? missing : `${problem}; received ${describe(iss.input)}`;

/** YAML reads 549755885175 as a number; ids are strings, and digits are what was meant. */
export const digitsAsString = (v: unknown) =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? String(v) : v;

const text = () =>
  z.preprocess(
    digitsAsString,
    z.string({ error: missingOr('must be a non-empty string') }).min(1, {
      error: 'must be a non-empty string; received ""',
    }),
  );

const oneOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: missingOr(`must be one of ${values.join(', ')}`) });

const list = <T extends z.ZodType>(item: T) =>
  z.array(item, { error: missingOr('must be a list', 'is missing; give a list') });

/** Never echoes the value: it may be a real secret with a typo. */
const plainToken = z
  .string({ error: 'must be 16 to 512 printable characters without spaces' })
  .regex(TOKEN, { error: 'must be 16 to 512 printable characters without spaces' });
const tokenSha256 = z
  .string({ error: 'must be the SHA-256 of the token as 64 lower-case hex characters' })
  .regex(SHA256_HEX, { error: 'must be the SHA-256 of the token as 64 lower-case hex characters' });

/** Unknown keys are refused, naming the keys allowed at that place (a typo is the usual cause). */
const object = <S extends z.core.$ZodLooseShape>(shape: S) =>
  z.strictObject(shape, {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `is not a config key here; allowed: ${Object.keys(shape).join(', ')}`
        : missingOr('must be a mapping')(iss),
  });

/** An IPv4 or IPv6 address, or a CIDR range of one (`10.0.0.0/8`, `::1/128`). */
const proxyAddress = z
  .string({ error: missingOr('must be an IP address or a CIDR range such as 10.0.0.0/8') })
  .refine(
    (v) => {
      const [addr, bits, ...rest] = v.split('/');
      const family = isIP(addr ?? '');
      if (family === 0 || rest.length) return false;
      if (bits === undefined) return true;
      return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
    },
    { error: missingOr('must be an IP address or a CIDR range such as 10.0.0.0/8') },
  );

/** An origin as browsers send it in `Origin`: http(s)://host[:port], no path. */
const origin = z.string({ error: missingOr('must be an origin such as https://events.example.com') }).refine(
  (v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === v;
    } catch {
      return false;
    }
  },
  { error: missingOr('must be an origin such as https://events.example.com (scheme, host, port; no path)') },
);

const adAccount = object({
  id: text().pipe(
    z.string().regex(AD_ACCOUNT_ID, { error: missingOr(`must match ${AD_ACCOUNT_ID.source} (C1)`) }),
  ),
  name: text().optional(),
  currency: text()
    .pipe(
      z.string().refine((c) => CURRENCIES.has(c), {
        error: missingOr('must be an ISO-4217 code such as USD'),
      }),
    )
    .default('USD'),
  owner: text().optional(),
  // C125: raw values of hashed user_data fields are normalized and hashed on arrival (a gateway for senders
  // that cannot hash); off by default, as Pinterest takes digests only.
  hash_user_data: z.boolean({ error: missingOr('must be true or false') }).default(false),
});

const app = object({
  id: text(),
  name: text().optional(),
  tier: oneOf(ACCESS_TIERS as unknown as readonly [string, ...string[]]).default('standard'),
});

const user = object({
  id: text(),
  name: text().optional(),
  roles: list(object({ ad_account: text(), role: text().default('owner') })).default([]),
});

const tokenCommon = {
  id: text().optional(),
  token: plainToken.optional(),
  sha256: tokenSha256.optional(),
  revoked: z.boolean({ error: missingOr('must be true or false') }).default(false),
};

const token = z.discriminatedUnion(
  'kind',
  [
    object({ ...tokenCommon, kind: z.literal('conversion'), ad_account: text() }),
    object({
      ...tokenCommon,
      kind: z.literal('oauth'),
      user: text(),
      app: text(),
      scopes: list(oneOf(SCOPES)),
    }),
  ],
  {
    // The union's input is the whole token; the problem is its kind.
    error: (iss) =>
      missingOr('must be conversion or oauth')({ input: (iss.input as { kind?: unknown })?.kind }),
  },
);

/**
 * A URL of one of `schemes` (such as https://api.pinterest.com or nats://127.0.0.1:4222), without a user
 * name or password (C113).
 */
const urlOf = (schemes: readonly string[], example: string) =>
  z
    .string({ error: missingOr(`must be a URL such as ${example}`) })
    .refine(
      (v) => {
        try {
          return schemes.includes(new URL(v).protocol);
        } catch {
          return false;
        }
      },
      {
        // Shown without credentials, which may sit in a URL of the wrong scheme too.
        error: (iss) =>
          missingOr(`must be a URL such as ${example}`)({
            input: typeof iss.input === 'string' ? withoutCredentials(iss.input) : iss.input,
          }),
      },
    )
    .refine((v) => !hasCredentials(v), {
      error: (iss) =>
        `${credentialsProblem('token_env or token_file')}; received ${withoutCredentials(String(iss.input))}`,
    });

const sinkCommon = {
  name: text().optional(),
  // Absent: every ad account.
  ad_accounts: list(text()).optional(),
  batch_size: positive(LIMITS.batch_max_events.value).optional(),
};

// C100: where accepted events go onward; each is checked here, the token is read at start.
const sink = z.discriminatedUnion(
  'kind',
  [
    object({
      ...sinkCommon,
      kind: z.literal('conversions_api'),
      url: urlOf(['http:', 'https:'], 'https://api.pinterest.com'),
      upstream_ad_account: text()
        .pipe(z.string().regex(AD_ACCOUNT_ID, { error: missingOr(`must match ${AD_ACCOUNT_ID.source}`) }))
        .optional(),
      token_env: text().optional(),
      token_file: text().optional(),
    }),
    object({
      ...sinkCommon,
      kind: z.literal('nats'),
      url: urlOf(['nats:', 'tls:'], 'nats://127.0.0.1:4222'),
      stream: text().optional(),
      subject_prefix: text().optional(),
      max_age_seconds: positive(10 * 365 * 86400).optional(),
      max_bytes: positive(2 ** 50).optional(),
      duplicate_window_seconds: positive(30 * 86400).optional(),
    }),
  ],
  {
    error: (iss) =>
      missingOr('must be conversions_api or nats')({ input: (iss.input as { kind?: unknown })?.kind }),
  },
);

export const configSchema = object({
  admin_token: plainToken.optional(),
  admin_token_sha256: tokenSha256.optional(),
  ad_accounts: list(adAccount),
  apps: list(app).default([]),
  users: list(user).default([]),
  tokens: list(token).default([]),
  server: object({
    host: text().optional(),
    port: z
      .number({ error: missingOr('must be an integer from 0 to 65535') })
      .int({ error: missingOr('must be an integer from 0 to 65535') })
      .min(0, { error: missingOr('must be an integer from 0 to 65535') })
      .max(65535, { error: missingOr('must be an integer from 0 to 65535') })
      .optional(),
    // C41/C43: transport limits; absent keys take the spec's defaults (spec/data/limits.yaml).
    headers_timeout_seconds: positive(3600).optional(),
    body_timeout_seconds: positive(3600).optional(),
    max_connections: positive(1_000_000).optional(),
    max_body_bytes_in_flight: positive(2 ** 40).optional(),
    shutdown_grace_seconds: positive(3600, 0).optional(),
    // C71: peers whose X-Forwarded-Proto/-For/-Host are believed (fastify's trustProxy); none by default.
    trusted_proxies: list(proxyAddress).optional(),
  }).default({}),
  // C71: the admin API's protections; absent keys take the spec's defaults (spec/data/limits.yaml). The
  // login_* limits bound every failed admin authentication, not only logins (C115).
  admin: object({
    public_origin: origin.optional(),
    login_window_seconds: positive(86400).optional(),
    login_failures_per_client: positive(1_000_000).optional(),
    login_failures_overall: positive(1_000_000).optional(),
  }).default({}),
  storage: object({
    /** sqlite:PATH, :memory: or postgres://... (C47); `path` is the older spelling of an SQLite file. */
    url: text()
      .superRefine((v, ctx) => {
        if (typeof v !== 'string') return;
        const parsed = parseStoreUrl(v);
        if ('error' in parsed) ctx.addIssue({ code: 'custom', message: parsed.error });
      })
      .optional(),
    path: text().optional(),
    // Case does not matter to SQLite; the resolved value is upper-case.
    synchronous: z
      .preprocess((v) => (typeof v === 'string' ? v.toUpperCase() : v), oneOf(SYNC_LEVELS))
      .optional(),
  }).default({}),
  limits: object({
    /** memory or redis://... (C52). */
    url: text()
      .superRefine((v, ctx) => {
        if (typeof v !== 'string') return;
        const parsed = parseLimitsUrl(v);
        if ('error' in parsed) ctx.addIssue({ code: 'custom', message: parsed.error });
      })
      .optional(),
    prefix: text().optional(),
  }).default({}),
  // C60: retention of the request log; absent keys take the spec's defaults (spec/data/limits.yaml).
  request_log: object({
    // 0 turns the log off.
    max_entries: positive(100_000_000, 0).optional(),
    max_age_seconds: positive(365 * 86400).optional(),
    max_body_bytes: positive(2 ** 31, 0).optional(),
    max_bytes: positive(2 ** 45, 0).optional(),
    // C70: which bodies are kept; never a value refused or dropped as personal data.
    bodies: oneOf(REQUEST_LOG_BODIES).optional(),
  }).default({}),
  // C100: absent keys take the spec's defaults (spec/data/limits.yaml).
  delivery: object({
    sinks: list(sink).default([]),
    max_attempts: positive(1_000_000).optional(),
    retry_base_ms: positive(3_600_000).optional(),
    retry_max_seconds: positive(86400).optional(),
    lease_seconds: positive(3600).optional(),
    retention_seconds: positive(365 * 86400, 0).optional(),
    timeout_seconds: positive(3600).optional(),
    concurrency: positive(1000).optional(),
    batches_per_claim: positive(100).optional(),
  }).default({ sinks: [] }),
  log_level: oneOf(LOG_LEVELS).optional(),
  // C65: faults injected from the start; each item is checked by the admin API's own rules (validate.ts).
  faults: list(z.unknown()).default([]),
});

export type RawConfig = z.output<typeof configSchema>;
export type RawToken = RawConfig['tokens'][number];
