import type { MessageIR } from '../ir/types.js';
import type { Reader } from '../load/reader.js';
import { CODE_REASONS, KIND_CODES } from '../rules/index.js';

/**
 * messages.yaml against the rule kinds (src/rules): every code a kind emits has a template of that kind,
 * every template is emitted by its kind, and each has a text for exactly the `{reason}` cases its kind tells
 * apart. `r` reads messages.yaml.
 */
export function checkMessageKinds(r: Reader, messages: MessageIR[]): void {
  for (const [kind, codes] of Object.entries(KIND_CODES))
    for (const code of codes) {
      const m = messages.find((x) => x.code === code);
      if (!m) {
        r.at('messages').fail('message-template-missing', { code, kind });
        continue;
      }
      if (m.kind !== kind) r.at('messages').at(code).at('kind').fail('message-kind-mismatch', { code, kind });
    }
  for (const m of messages) {
    const at = r.at('messages').at(m.code);
    if (!KIND_CODES[m.kind]?.includes(m.code)) at.fail('message-code-unused', { code: m.code, kind: m.kind });
    const want = CODE_REASONS[m.code] ?? [];
    const have = (m.reasons ?? []).map((x) => x.key);
    if (want.join() !== have.join())
      at.at('reasons').fail('message-reasons-mismatch', {
        kind: m.kind,
        want: want.length ? want.join(', ') : 'no reasons',
        have: have.join(', ') || 'none',
      });
  }
}
