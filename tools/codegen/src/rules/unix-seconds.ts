import type { UnixSecondsRule } from '../ir/types.js';
import { quote } from '../kit/code.js';
import { duration, limitText, num } from '../kit/md.js';
import { limitRef } from './context.js';
import type { ValueKind } from './kind.js';

/** A time in Unix seconds within an age and a lead; a value that looks like milliseconds is named so. */
export const unixSeconds: ValueKind<UnixSecondsRule> = {
  place: 'field',
  codes: ['event_time_milliseconds', 'event_time_too_old', 'event_time_in_future'],
  parse: {
    params: ['maxAgeLimit', 'maxFutureLimit', 'millisecondsLimit'],
    read: (r, ctx) => ({
      kind: 'unix-seconds',
      severity: 'failed',
      maxAge: limitRef(ctx.limits, r.at('maxAgeLimit')),
      maxFuture: limitRef(ctx.limits, r.at('maxFutureLimit')),
      milliseconds: limitRef(ctx.limits, r.at('millisecondsLimit')),
    }),
  },
  code: (r, site, { scope }) => [
    `${scope.lib('unix-seconds', 'checkUnixSeconds')}(o, p, i, ${quote(site.name)}, ${site.v}, c.now, ${r.maxAge.value}, ${r.maxFuture.value}, ${r.milliseconds.value});`,
  ],
  doc: (r) =>
    `Unix seconds; at most ${duration(r.maxAge.value)} old (${limitText(r.maxAge)} s) and ${duration(r.maxFuture.value)} ahead (${limitText(r.maxFuture)} s); ${num(r.milliseconds.value)} or more is taken for milliseconds`,
  summary: (r) =>
    `Unix seconds; at most ${r.maxAge.value} s old and ${r.maxFuture.value} s ahead; values >= ${r.milliseconds.value} are taken for milliseconds.`,
};
