import type { DecisionIR, DifferenceIR } from '../ir/types.js';
import type { Reader } from '../load/reader.js';

/** spec/data/differences.yaml: each divergence from Pinterest, with the decisions behind it (which must exist). */
export function readDifferences(r: Reader, decisions: DecisionIR[]): DifferenceIR[] {
  const known = new Set(decisions.map((d) => d.id));
  return r
    .at('differences')
    .array()
    .map((row) => {
      const text = (key: string) => {
        const s = row.at(key).string().trim();
        if (!s) row.at(key).fail('empty-text');
        return s;
      };
      const ids = row.at('decisions').array();
      if (ids.length === 0) row.at('decisions').fail('difference-without-decision');
      for (const id of ids) if (!known.has(id.string())) id.fail('unknown-decision', { id: id.string() });
      return {
        topic: text('topic'),
        pinterest: text('pinterest'),
        service: text('service'),
        reason: text('reason'),
        decisions: ids.map((i) => i.string()),
        evidence: text('evidence'),
      };
    });
}
