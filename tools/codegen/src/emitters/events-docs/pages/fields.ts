import type { FieldIR } from '../../../ir/types.js';
import { blocks, code, link, list, slug, table } from '../../../kit/md.js';
import type { DocsContext, Section } from '../context.js';
import { fieldType, outcomes, recommendedText, ruleCodes, ruleText } from '../rules.js';
import type { Page } from './page.js';

export function sectionTitle(sec: Section): string {
  return sec.via ? `${sec.prefix.replace(/\.$/, '')} (${sec.schema.name})` : `The event (${sec.schema.name})`;
}

function required(f: FieldIR): string {
  if (f.required) return '**required**';
  return f.recommended ? recommendedText(f.recommended) : 'optional';
}

function format(f: FieldIR, ctx: DocsContext): string {
  const parts = [f.description];
  const rules = [
    ...f.rules.map((r) => ruleText(r, ctx)),
    ...f.itemRules.map((r) => ruleText(r, ctx)).map((t) => t && `each item: ${t}`),
  ];
  const said = rules.filter((x): x is string => Boolean(x));
  if (said.length) parts.push(`Rule: ${said.join('; ')}.`);
  if (f.normalize)
    parts.push(`Normalize as ${link(code(f.normalize), 'normalization', f.normalize)} before hashing (C5).`);
  if (f.source === 'pinterest')
    parts.push(
      `From ${link("Pinterest's public API", 'differences', 'fields-not-in-the-seed')}, not in the seed.`,
    );
  if (f.example !== undefined) parts.push(`Example: ${code(JSON.stringify(f.example))}.`);
  return parts.join('<br>');
}

function fieldRow(f: FieldIR, sec: Section, ctx: DocsContext): string[] {
  const wrong = outcomes([...f.rules, ...f.itemRules], ctx);
  return [
    `<a id="${`${sec.prefix}${f.name}`.replace(/\[\]/g, '')}"></a>${code(f.name)}`,
    fieldType(f),
    required(f),
    format(f, ctx),
    wrong.join('<br>') || 'no check',
  ];
}

function objectRules(sec: Section, ctx: DocsContext): string {
  const rows = sec.schema.rules.map((r) => {
    const codes = ruleCodes(r, ctx);
    const what = ruleText(r, ctx) ?? r.kind;
    const out = codes.length
      ? codes
          .map((m) => `**${m.severity}** ${link(code(m.code), 'event-errors', m.code)}: ${code(m.template)}`)
          .join('<br>')
      : r.kind === 'unknown-keys' && r.severity === 'request'
        ? `the request answers 400 (${link('Request errors', 'request-errors')})`
        : '';
    return [code(r.kind), what, out];
  });
  return rows.length ? table(['Rule', 'What it checks', 'When it does not hold'], rows) : '';
}

export const fieldsPage: Page = {
  slug: 'fields',
  title: 'Fields',
  summary:
    'Every field of an event: type, required or recommended, format and rule, and the exact message when it is wrong.',
  body(ctx) {
    const failed = ctx.ir.messages.filter((m) => m.severity === 'failed').length;
    const warning = ctx.ir.messages.length - failed;
    return blocks(
      `Each event of ${code(ctx.dataField.name)} is checked on its own (seed 4.1 rule 1, C4). A problem is either **failed** (the event is not stored; ${failed} codes) or **warning** (the event is processed, the offending value is dropped and never stored; ${warning} codes). Messages name the field path, what was received and what to send (C3); the templates below are exact, with ${code('{parameters}')} filled in and ${code('[[ ... ]]')} parts kept only when their parameters are known. Codes are listed on ${link('Per-event errors', 'event-errors')}.`,
      'Objects of an event:',
      list(
        ctx.sections.map(
          (s) => `[${sectionTitle(s)}](#${slug(sectionTitle(s))}): ${s.schema.fields.length} fields`,
        ),
      ),
      ...ctx.sections.flatMap((sec) => [
        `## ${sectionTitle(sec)}`,
        sec.schema.description,
        sec.via
          ? `Sent as ${code(sec.prefix.replace(/\.$/, ''))}; paths in messages start with ${code(sec.prefix)}.`
          : '',
        table(
          ['Field', 'Type', 'Required', 'Format and rule', 'When it is wrong'],
          sec.schema.fields.map((f) => fieldRow(f, sec, ctx)),
        ),
        sec.schema.rules.length
          ? `### Rules on the whole ${sec.via ? code(sec.prefix.replace(/\.$/, '')) : 'event'}`
          : '',
        objectRules(sec, ctx),
      ]),
      `## The request (${ctx.requestSchema.name})`,
      ctx.requestSchema.description,
      table(
        ['Field', 'Type', 'Required', 'Format and rule'],
        ctx.requestSchema.fields.map((f) => [
          code(f.name),
          fieldType(f),
          f.required ? '**required**' : 'optional',
          format(f, ctx),
        ]),
      ),
      objectRules({ schema: ctx.requestSchema, prefix: '' }, ctx),
    );
  },
};
