// The served OpenAPI document is clean under Redocly's recommended rules (issue 23 point 6), checked with
// @redocly/openapi-core, the library behind `redocly lint`, on the file the server serves.
import { createConfig, lint } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { openapiYamlPath } from '../src/index.js';

/**
 * The one finding kept on purpose, with why: the request example `data_not_array` is the body of a refused
 * request, shown beside the 400 it draws (its x-request sends it in the examples test). It cannot conform.
 */
const KEPT = [
  'no-invalid-media-type-examples #/paths/~1v5~1ad_accounts~1{ad_account_id}~1events/post/requestBody/content/application~1json/examples/data_not_array/value/data',
];

describe('the served OpenAPI document', () => {
  it("has no error and no warning under Redocly's recommended rules", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lint({ ref: openapiYamlPath, config });
    const found = problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer ?? ''}`);
    expect(found.filter((f) => !KEPT.includes(f))).toEqual([]);
  }, 60_000);
});
