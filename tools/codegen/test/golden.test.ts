import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { emitAll, listFiles } from '../src/emit/run.js';
import { emitters } from '../src/emitters/index.js';
import { loadSpec } from '../src/load/load-spec.js';
import { buildIR } from '../src/model/build-ir.js';

// Golden outputs per emitter over a fixed fixture spec (a copy of spec/ with trimmed code lists).
// They fail on any difference, on a missing file and on an orphaned golden file.
// Refresh after an intended emitter change: UPDATE_GOLDEN=1 pnpm --filter @org/codegen test
const here = fileURLToPath(new URL('.', import.meta.url));
const fixture = join(here, 'fixtures/spec');
const goldenRoot = join(here, 'golden');
const update = process.env.UPDATE_GOLDEN === '1';
// Large assets (a bundled renderer, say) are compared by digest so the golden folder stays reviewable.
const DIGEST_ABOVE = 256 * 1024;

const goldenText = (content: string) =>
  content.length > DIGEST_ABOVE ? `sha256 ${createHash('sha256').update(content).digest('hex')}\n` : content;

describe('golden output per emitter', async () => {
  const ir = await buildIR(await loadSpec(fixture));
  for (const emitter of emitters) {
    it(emitter.name, async () => {
      const files = await emitAll(ir, [emitter]);
      const dir = join(goldenRoot, emitter.name);
      const want = new Map(files.map((f) => [`${f.path}.golden`, goldenText(f.content)]));
      if (update) {
        await rm(dir, { recursive: true, force: true });
        for (const [p, c] of want) {
          await mkdir(dirname(join(dir, p)), { recursive: true });
          await writeFile(join(dir, p), c);
        }
      }
      const have = (await listFiles(dir)).map((p) => relative(dir, p).split('\\').join('/')).sort();
      expect(have, 'golden files (missing or orphaned)').toEqual([...want.keys()].sort());
      for (const [p, c] of want) expect(c, p).toBe(await readFile(join(dir, p), 'utf8'));
    });
  }
});
