import { blocks, code, fence, json, link, list, table } from '../../../kit/md.js';
import type { DocsContext } from '../context.js';
import type { ExamplesFile } from '../examples.js';
import type { Page } from './page.js';

const percent = (score: number) => `${Math.round(score * 100)}%`;

/**
 * C125: running the service as a gateway in front of Pinterest for senders that cannot hash: when to turn
 * `hash_user_data` on, what is hashed and how (the normalization table of C5), what is never kept, and what it
 * does to an event's match quality, from the example of examples.json (checked against the validators).
 */
export const gatewayPage: Page = {
  slug: 'gateway',
  title: 'Running as a gateway',
  summary:
    'For senders that cannot hash: an ad account with `hash_user_data: true` normalizes and hashes raw user data on arrival (C125).',
  body(ctx: DocsContext, ex: ExamplesFile) {
    const n = ctx.ir.normalization;
    const hashed = ctx.sections.flatMap((s) =>
      s.schema.fields.filter((f) => f.normalize).map((f) => ({ path: `${s.prefix}${f.name}`, f })),
    );
    const dropped = ctx.message('hash_dropped');
    const refused = ctx.message('not_normalizable_dropped');
    const note = ctx.message('hashed_on_arrival');
    const g = ex.gateway;
    const adAccount = ex.adAccountId;
    // The identifiers of the example sent as they are (an IP address, a user agent, a click id).
    const member = g.fields[0]?.split('.')[0] ?? 'user_data';
    const plain = Object.keys((g.raw[member] ?? {}) as object)
      .map((k) => `${member}.${k}`)
      .filter((p) => !g.fields.includes(p) && n.unhashed.includes(p.slice(member.length + 1)));
    const messages = (warnings: string[]) =>
      warnings.length ? list(warnings.map((w) => code(w))) : 'No warning.';
    return blocks(
      `Pinterest takes personal data only as SHA-256 digests, and so does this service: a raw value in a hashed field is dropped with a warning and never stored (${link(code(dropped.code), 'event-errors', dropped.code)}, C4). Every sender must then normalize and hash as ${link('Normalization and hashing', 'normalization')} says (C5). When the service runs as a gateway in front of Pinterest (its ${code('--forward')} sink, or a ${code('conversions_api')} sink of ${code('delivery:')}), an ad account can ask the service to do that for its senders instead.`,
      '## When to turn it on',
      list([
        "Some of the account's senders cannot hash: a CRM export, a server script, a no-code tool, a partner that sends what the checkout form holds.",
        'The account is forwarded (or published) onward, and the operator wants the upstream to get digests whatever the sender sent.',
        `Leave it off (the default) for an account used to test an integration that will talk to Pinterest directly: there a raw value is dropped, and an integration tested against a hashing account would lose those fields in production.`,
      ]),
      fence(
        'yaml',
        [
          '# the server config (C8)',
          'ad_accounts:',
          `  - id: "${adAccount}"`,
          '    hash_user_data: true   # default false',
        ].join('\n'),
      ),
      `The setting belongs to the ad account, whatever token sends its events: a digest is passed through untouched, so senders that hash and senders that cannot can share the account. There is no token-level setting (C125). A value other than ${code('true')} or ${code('false')} stops the start with the config's path and line.`,
      '## What is hashed, and how',
      `On arrival, after the body is read and parsed and before any check, log line or store, each string in the array of a hashed field that is not already 64 hex characters is normalized by the rule of its kind and replaced by the lower-case hex SHA-256 of the result: the same code as the client's ${code('hashUserData')} (the ${code('country')} of the same ${code('user_data')} selects the zip rule). The event is then checked as any other. Left as sent: digests, fields sent as they are (${n.unhashed.map(code).join(', ')}), a value of another JSON type, and a hashed field given as one string instead of an array (it fails with ${code('invalid_type')}, as everywhere). Large batches are hashed on the validation thread that validates them (C76).`,
      table(
        ['Field', 'Kind', 'Steps', 'Rule'],
        hashed.map(({ path, f }) => {
          const k = n.kinds.find((x) => x.name === f.normalize);
          return [
            code(path),
            link(code(f.normalize!), 'normalization', f.normalize!),
            (k?.steps ?? []).map(code).join(' → '),
            k?.description ?? '',
          ];
        }),
      ),
      'What the service makes of raw values (the worked example of C5):',
      table(
        ['Field', 'Sent', 'Normalized', 'Stored and forwarded'],
        ex.normalization.map((w) => [
          code(w.field),
          code(JSON.stringify(w.raw)),
          code(w.normalized),
          code(w.sha256),
        ]),
      ),
      '## Values that cannot be normalized',
      `A value the rule of its kind refuses is not hashed: it is dropped, and the warning says why without quoting it (${link(code(refused.code), 'event-errors', refused.code)}): ${code(refused.template)}, where ${code('{reason}')} is`,
      table(
        ['Kind', code('{reason}')],
        (refused.reasons ?? []).map((r) => [code(r.key), r.template]),
      ),
      '## What is never kept',
      list([
        'The raw values: not in the answer, the request log, the inspector, the exports, the logs, the database or what goes onward. Only their digests are stored, and so forwarded to Pinterest or published to NATS.',
        'A value that could not be normalized: dropped as above; the request log keeps only its shape, such as `(not kept: a string of 25 character(s))` (C70).',
        `The request log keeps the events with the digests in place. For each list of fields the service hashed in a request, the first event with that list gets a note first in the log's copy of its warning message, naming the fields and counting the later events with the same list (${code(note.template)}); the note is the log's only: the client's answer has no warning for it, and the request's ${code('warned')} count is the answer's. The inspector lists these notes under "Hashed by this service".`,
      ]),
      '## Before and after: match quality',
      `The same event from a sender that cannot hash (${g.fields.map(code).join(', ')} raw), on an account without the setting and on one with it. Match quality (C67) is the weighted share of the recommended fields that apply to the event which it carries, a hashed field counting only when it holds digests.`,
      json(g.raw),
      table(
        ['', 'Without `hash_user_data`', 'With `hash_user_data: true`'],
        [
          ['Match quality', percent(g.before.score), percent(g.after.score)],
          ['Identifiers kept', plain.map(code).join(', '), [...plain, ...g.fields].map(code).join(', ')],
        ],
      ),
      'Warnings without the setting:',
      messages(g.before.warnings),
      'Warnings with it:',
      messages(g.after.warnings),
      'What is stored, and forwarded, with it:',
      json(g.hashed),
    );
  },
};
