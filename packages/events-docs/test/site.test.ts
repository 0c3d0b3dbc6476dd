// The generated site: files the server serves, links that resolve, no network access, safe path mapping.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  contentTypeOf,
  docsPages,
  docsRoot,
  openapiJson,
  openapiYaml,
  openapiYamlPath,
  referenceRoot,
  resolveDocsFile,
} from '../src/index.js';

const htmlFiles = readdirSync(docsRoot).filter((f) => f.endsWith('.html'));

describe('@org/events-docs site', () => {
  it('has an index, the Redoc page and one HTML page per Markdown page', () => {
    expect(htmlFiles).toContain('index.html');
    expect(htmlFiles).toContain('api.html');
    const pages = docsPages();
    expect(pages[0]!.file).toBe('index.html');
    for (const p of pages) {
      expect(existsSync(join(docsRoot, p.file)), p.file).toBe(true);
      if (p.markdown) expect(existsSync(join(referenceRoot, p.markdown)), p.markdown).toBe(true);
    }
    const md = readdirSync(referenceRoot).filter((f) => f.endsWith('.md'));
    expect(md.length).toBe(pages.filter((p) => p.markdown).length);
  });

  it('serves the resolved OpenAPI document as YAML and JSON', () => {
    const doc = JSON.parse(openapiJson) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toContain('/v5/ad_accounts/{ad_account_id}/events');
    expect(openapiYaml).toMatch(/^openapi: 3\./m);
    expect(openapiYaml).toMatch(/maxItems: 1000$/m); // resolved: x-limits keys became plain keywords
    expect(resolveDocsFile('openapi.yaml')?.path).toBe(openapiYamlPath);
  });

  it('ships the renderer bundle and loads nothing from another host', () => {
    const api = readFileSync(join(docsRoot, 'api.html'), 'utf8');
    expect(api).toContain('<script src="assets/redoc.standalone.js"></script>');
    const bundle = readFileSync(join(docsRoot, 'assets/redoc.standalone.js'), 'utf8');
    expect(bundle.length).toBeGreaterThan(500_000);
    expect(bundle).not.toContain('cdn.redoc.ly');
    for (const f of [...htmlFiles, 'assets/docs.css', 'assets/api.js']) {
      const text = readFileSync(join(docsRoot, f), 'utf8');
      // No stylesheet, script, image or font from elsewhere (links in prose to other sites are fine).
      expect(text, f).not.toMatch(/<(script|link|img)[^>]+(src|href)="(https?:)?\/\//);
      expect(text, f).not.toMatch(/url\((["']?)(https?:)?\/\//);
    }
  });

  it('every relative link and anchor of every page resolves', () => {
    const ids = new Map<string, Set<string>>();
    const idsOf = (file: string) => {
      let s = ids.get(file);
      if (!s) {
        s = new Set(
          [...readFileSync(join(docsRoot, file), 'utf8').matchAll(/ id="([^"]+)"/g)].map((m) => m[1]!),
        );
        ids.set(file, s);
      }
      return s;
    };
    const broken: string[] = [];
    for (const f of htmlFiles) {
      if (f === 'api.html') continue;
      const html = readFileSync(join(docsRoot, f), 'utf8');
      for (const [, href] of html.matchAll(/<a href="([^"]+)"/g)) {
        if (/^[a-z]+:/.test(href!)) continue;
        const [target, anchor] = href!.replace(/&amp;/g, '&').split('#');
        const file = target || f;
        if (!existsSync(join(docsRoot, file))) broken.push(`${f}: ${href}`);
        else if (anchor && file.endsWith('.html') && !idsOf(file).has(anchor))
          broken.push(`${f}: ${href} (no anchor)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('resolveDocsFile maps URL paths to files and never leaves docsRoot', () => {
    expect(resolveDocsFile('')?.path).toBe(join(docsRoot, 'index.html'));
    expect(resolveDocsFile('/')?.path).toBe(join(docsRoot, 'index.html'));
    expect(resolveDocsFile('/fields.html')?.contentType).toBe('text/html; charset=utf-8');
    expect(resolveDocsFile('assets/docs.css?v=1')?.contentType).toBe('text/css; charset=utf-8');
    expect(resolveDocsFile('assets/')).toBeUndefined();
    expect(resolveDocsFile('nope.html')).toBeUndefined();
    for (const bad of [
      '../package.json',
      '/../package.json',
      '..%2fpackage.json',
      '%2e%2e/package.json',
      'a/../../x',
      'a\\..\\x',
      '%00',
      '%E0%A4%A',
    ])
      expect(resolveDocsFile(bad), bad).toBeUndefined();
    expect(contentTypeOf('x.yaml')).toBe('application/yaml; charset=utf-8');
    expect(contentTypeOf('x.bin')).toBe('application/octet-stream');
  });
});
