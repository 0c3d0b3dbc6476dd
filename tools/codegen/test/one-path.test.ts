// The rules that keep one path from the spec to the server: limits in request-error prose, headers completed
// on every response, generated body and query checks, and the path-parameter bound (C30-C34).
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventsMockServerEmitter } from '../src/emitters/events-mock-server/index.js';
import { loadSpec } from '../src/load/load-spec.js';
import { SpecError } from '../src/load/spec-error.js';
import { buildIR } from '../src/model/build-ir.js';
import { copySpec, editYaml } from './helpers.js';

type Obj = Record<string, unknown>;

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((t) => rm(t, { recursive: true, force: true })));
});
async function tmpSpec(): Promise<string> {
  const root = await copySpec();
  temps.push(root);
  return root;
}
const irOf = async (root: string) => buildIR(await loadSpec(join(root, 'spec')));
const serverFiles = async (root: string) => eventsMockServerEmitter.emit(await irOf(root));
const openapi = (root: string) => join(root, 'spec/openapi.yaml');
const path = (d: Obj, p: string) => (d.paths as Record<string, Obj>)[p] as Record<string, Obj>;

describe('one path from the spec', () => {
  it('replaces {limit:KEY} in request-error texts and refuses an unknown limit', async () => {
    const root = await tmpSpec();
    const ir = await irOf(root);
    expect(ir.requestErrors.find((e) => e.key === 'payload_too_large')?.fix).toBe(
      'Send at most 1000 events and at most 5 MiB per request.',
    );
    await editYaml(join(root, 'spec/data/request-errors.yaml'), (d) => {
      (d.problems as Record<string, Obj>).data_empty!.template = 'must hold {limit:no_such_limit}';
    });
    await expect(irOf(root)).rejects.toThrow(SpecError);
    await expect(irOf(root)).rejects.toThrow(/problems\.data_empty\.template: unknown limit "no_such_limit"/);
  });

  it('adds the request id to every response and rate-limit headers to rate-limited operations but 401', async () => {
    const ir = await irOf(await tmpSpec());
    const events = path(ir.openapi, '/v5/ad_accounts/{ad_account_id}/events').post as {
      responses: Record<string, { headers?: Obj; $ref?: string }>;
    };
    expect(Object.keys(events.responses['200']?.headers ?? {})).toEqual([
      'x-request-id',
      'x-pinterest-rid',
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
    ]);
    // 401 keeps its shared response (request id only); default as well.
    expect(events.responses['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
    const shared = (ir.openapi.components as { responses: Record<string, { headers: Obj }> }).responses;
    expect(Object.keys(shared.Unauthorized!.headers)).toEqual(['x-request-id', 'x-pinterest-rid']);
    const health = path(ir.openapi, '/healthz').get as { responses: Record<string, { headers?: Obj }> };
    expect(Object.keys(health.responses['200']?.headers ?? {})).toEqual(['x-request-id', 'x-pinterest-rid']);
    expect(ir.openapi['x-data']).toBeUndefined();
  });

  it('refuses a response listing a header under another name than its x-name', async () => {
    const root = await tmpSpec();
    await editYaml(openapi(root), (d) => {
      const r = (d.components as { responses: Record<string, { headers: Obj }> }).responses;
      r.RateLimited!.headers = { 'retry-after-seconds': { $ref: '#/components/headers/RetryAfter' } };
    });
    await expect(irOf(root)).rejects.toThrow(/listed as retry-after-seconds, but its x-name is Retry-After/);
  });

  it('emits the checks of every body and query but the events batch, and types for them', async () => {
    const files = await serverFiles(await tmpSpec());
    const checks = files.find((f) => f.path.endsWith('request-checks.gen.ts'))!.content;
    for (const fn of [
      'checkTagEventsRequest',
      'checkCustomEventTypeCreateRequest',
      'checkAdminEventsListQuery',
      'checkEventsCreateQuery',
    ])
      expect(checks).toContain(`export function ${fn}(`);
    expect(checks).not.toContain('checkConversionEventsRequest');
    // The alias folds into `test`; only the canonical name is in the checked type.
    expect(checks).toMatch(
      /export interface EventsCreateQuery \{\n {2}readonly test\?: 'true' \| 'false';\n\}/,
    );
    expect(checks).toContain("bound: 'an integer from 0 to 99999999999'");
    const routes = files.find((f) => f.path.endsWith('routes.gen.ts'))!.content;
    expect(routes).toContain('export const PATH_PARAM_MAX_LENGTH = 100 as const;');
    expect(routes).toContain("RequestId: 'x-request-id',");
  });

  it('refuses an alias of no parameter, a path parameter without maxLength, an array without its problems', async () => {
    const alias = await tmpSpec();
    await editYaml(openapi(alias), (d) => {
      ((d.components as { parameters: Record<string, Obj> }).parameters.IsTest as Obj)['x-alias-of'] = 'nope';
    });
    await expect(serverFiles(alias)).rejects.toThrow(
      /\.parameters: is_test is an alias of nope, which is no parameter of the operation \[alias-of-unknown\]/,
    );

    const bound = await tmpSpec();
    await editYaml(openapi(bound), (d) => {
      const p = (d.components as { parameters: Record<string, { schema: Obj }> }).parameters.AdAccountId!;
      delete p.schema.maxLength;
    });
    await expect(serverFiles(bound)).rejects.toThrow(
      /path parameter ad_account_id needs a maxLength \(the router bound\) \[path-parameter-max-length\]/,
    );

    const rows = await tmpSpec();
    await editYaml(join(rows, 'spec/data/request-errors.yaml'), (d) => {
      delete (d.problems as Obj).data_too_many;
    });
    await expect(serverFiles(rows)).rejects.toThrow(
      /request-errors\.yaml: problems: no problem "data_too_many" for .* \[request-problem-missing\]/,
    );
  });
});
