// Rebuilds test/fixtures/spec from spec/ with trimmed code lists, so the golden files stay small enough to
// review. Run after a deliberate spec change: node --import tsx scripts/make-fixture.ts, then
// UPDATE_GOLDEN=1 pnpm --filter @org/codegen test.
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseDocument, type YAMLSeq } from 'yaml';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const target = here('../test/fixtures/spec');
const keep: Record<string, string[]> = {
  currencies: ['EUR', 'GBP', 'INR', 'JPY', 'USD'],
  languages: ['de', 'en', 'fr'],
  countries: ['ca', 'de', 'fr', 'gb', 'us'],
  regions: ['ca', 'ny', 'on', 'qc', 'tx'],
};

await rm(target, { recursive: true, force: true });
await cp(here('../../../spec'), target, { recursive: true });
for (const [list, codes] of Object.entries(keep)) {
  const path = `${target}/data/${list}.yaml`;
  const doc = parseDocument(await readFile(path, 'utf8'));
  const seq = doc.get(list) as YAMLSeq<{ get(k: string): unknown }>;
  seq.items = seq.items.filter((item) => codes.includes(String(item.get('code'))));
  await writeFile(path, `# Trimmed copy for the golden tests (scripts/make-fixture.ts).\n${doc.toString()}`);
}
console.log(`wrote ${target}`);
