import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * Redoc's standalone bundle (a dependency of tools/codegen, pinned by the lockfile), copied into the site so
 * the rendered OpenAPI works offline and the server never reaches a CDN. The source-map comment is dropped:
 * the map is not shipped, and the branding logo is not fetched from Redocly's CDN. Read once per process.
 */
export interface VendorFile {
  name: string;
  content: string;
}

let cache: VendorFile[] | undefined;

/** The only third-party request the bundle makes: the "API docs by Redocly" logo. An empty image instead. */
const REDOCLY_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const BLANK_SVG = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E";

export function redocFiles(): VendorFile[] {
  if (cache) return cache;
  const require = createRequire(import.meta.url);
  const bundle = require.resolve('redoc/bundles/redoc.standalone.js');
  const js = readFileSync(bundle, 'utf8')
    .replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n')
    .replaceAll(REDOCLY_LOGO, BLANK_SVG);
  const license = readFileSync(`${bundle}.LICENSE.txt`, 'utf8');
  const pkg = JSON.parse(readFileSync(require.resolve('redoc/package.json'), 'utf8')) as {
    version: string;
    license: string;
  };
  cache = [
    { name: 'redoc.standalone.js', content: js },
    {
      name: 'redoc.standalone.js.LICENSE.txt',
      content: `Redoc ${pkg.version} (${pkg.license}), bundled third-party licenses:\n\n${license}`,
    },
  ];
  return cache;
}
