import { blocks, code, fence, link, list, table, words } from '../../../kit/md.js';
import type { DocsContext } from '../context.js';
import type { ExamplesFile } from '../examples.js';
import type { Page } from './page.js';

export const normalizationPage: Page = {
  slug: 'normalization',
  title: 'Normalization and hashing',
  summary:
    'How each hashed user_data field is normalized and hashed before sending, with a worked example (C5).',
  body(ctx: DocsContext, ex: ExamplesFile) {
    const n = ctx.ir.normalization;
    const hashed = ctx.sections.flatMap((s) =>
      s.schema.fields.filter((f) => f.normalize).map((f) => ({ path: `${s.prefix}${f.name}`, f })),
    );
    const hashMsg = ctx.message('hash_dropped');
    const first = ex.normalization[0];
    return blocks(
      `The service only ever sees hashes of personal data: it checks their shape (64 lower-case hex characters), never their normalization. So the sender normalizes each value, hashes it with SHA-256 over UTF-8 and sends the lower-case hex digest, always inside an array (C5). A value that is not a digest is dropped with a warning and never stored (${link(code(hashMsg.code), 'event-errors', hashMsg.code)}: ${code(hashMsg.template)}).`,
      `Fields sent as they are, never hashed: ${words(n.unhashed.map(code))}.`,
      '## Per field',
      table(
        ['Field', 'Kind', 'Steps', 'What to do'],
        hashed.map(({ path, f }) => {
          const k = n.kinds.find((x) => x.name === f.normalize);
          return [
            code(path),
            `<a id="${f.normalize}"></a>${code(f.normalize!)}`,
            (k?.steps ?? []).map(code).join(' → '),
            k?.description ?? '',
          ];
        }),
      ),
      '## Worked example',
      'Each row takes a fixed raw value through the steps of its kind; the digest was computed with SHA-256 when these pages were generated. Send the digest, never the raw value.',
      table(
        ['Field', 'Raw value', 'Normalized', 'SHA-256 (send this)'],
        ex.normalization.map((w) => [
          code(w.field),
          code(JSON.stringify(w.raw)),
          code(w.normalized),
          code(w.sha256),
        ]),
      ),
      first
        ? blocks(
            `In Node.js, for ${code(first.field)}:`,
            fence(
              'js',
              [
                "import { createHash } from 'node:crypto';",
                '',
                `const raw = ${JSON.stringify(first.raw)};`,
                `const normalized = raw${first.steps.map((s) => (s === 'trim' ? '.trim()' : s === 'lower' ? '.toLowerCase()' : `/* ${s} */`)).join('')};`,
                "const digest = createHash('sha256').update(normalized, 'utf8').digest('hex');",
                `// ${first.sha256}`,
                `const user_data = { ${first.field.split('.').pop()}: [digest] };`,
              ].join('\n'),
            ),
          )
        : '',
      '## Dates',
      `${code('db')} is sent as the hash of ${code('YYYYMMDD')}. These layouts are tried in order; the first that matches wins (month first when ambiguous):`,
      table(
        ['Pattern', 'Order'],
        n.dateFormats.map((d) => [code(d.pattern), d.order.join(', ')]),
      ),
      '## Gender',
      table(
        ['Code', 'Words mapped to it'],
        Object.entries(n.gender).map(([g, ws]) => [code(g), ws.map(code).join(', ')]),
      ),
      '## Zip codes, states and countries',
      list([
        `Zip codes of ${words(n.zipFirstFiveDigits.map(code))} keep their first 5 digits; other zip codes are lower-cased with spaces removed.`,
        `States: ${ctx.ir.codeLists.regions.length} US state and Canadian province names (and aliases) map to their two-letter code.`,
        `Countries: ${ctx.ir.codeLists.countries.length} ISO-3166 countries; common names and aliases map to the two-letter lower-case code.`,
      ]),
      '## User agents',
      `${code('client_user_agent')} is not hashed. It is dropped with a warning when it is one of ${words(
        n.userAgent.rejectValues.map((v) => code(v)),
        'or',
      )} (case-insensitive), has no product token like ${code(n.userAgent.productToken)} (a name and its version), names no product other than ${words(n.userAgent.compatibilityProducts.map(code), 'or')} (no browser or app; C85), names fewer than ${n.userAgent.systemItemsMin} system details in its first parenthesized comment (items separated by ${code(n.userAgent.systemSeparator)}, such as ${code('(Windows NT 10.0; Win64)')}; C22), or contains a bot marker: ${n.userAgent.botPatterns.map(code).join(', ')}.`,
    );
  },
};
