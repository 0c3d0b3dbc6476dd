import { blocks, code, link, table } from '../../../kit/md.js';
import type { DocsContext } from '../context.js';
import type { Page } from './page.js';

export const codeListsPage: Page = {
  slug: 'code-lists',
  title: 'Code lists',
  summary: 'The ISO-4217 currencies and ISO-639-1 languages accepted in custom_data.currency and language.',
  body(ctx: DocsContext) {
    const c = ctx.ir.codeLists;
    return blocks(
      `Values checked against a list (see ${link('Fields', 'fields')}). Countries and states are used client-side only, for ${link('normalization', 'normalization')}.`,
      '## currencies',
      `${c.currencies.length} ISO-4217 codes, upper case, for ${code('custom_data.currency')}.`,
      table(
        ['Code', 'Name'],
        c.currencies.map((x) => [code(x.code), x.name]),
      ),
      '## languages',
      `${c.languages.length} ISO-639-1 codes, lower case, for ${code('language')}.`,
      table(
        ['Code', 'Name'],
        c.languages.map((x) => [code(x.code), x.name]),
      ),
    );
  },
};
