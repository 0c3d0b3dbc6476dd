import type { DocsContext } from '../context.js';
import type { ExamplesFile } from '../examples.js';

/** One reference page: `reference/<slug>.md` and `public/<slug>.html`. */
export interface Page {
  slug: string;
  title: string;
  /** One line for the index and the nav tooltip. */
  summary: string;
  body(ctx: DocsContext, examples: ExamplesFile): string;
}
