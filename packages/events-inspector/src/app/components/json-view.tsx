import { absentPaths, jsonLines } from '../lib/json-lines.js';

interface Props {
  value: unknown;
  /** Paths the event's messages name; their lines are marked. */
  highlight: readonly string[];
  /** Message per field, shown on the first line of the field it names. */
  notes: ReadonlyMap<string, { text: string; severity: 'failed' | 'warned' }>;
}

/** An event's JSON, pretty-printed, with the fields named by its messages marked and the messages beside. */
export function JsonView({ value, highlight, notes }: Props) {
  const lines = jsonLines(value, highlight);
  const absent = absentPaths(lines, highlight);
  return (
    <div class="json">
      <pre>
        {lines.map((l, i) => {
          const note = l.anchor !== null ? notes.get(l.anchor) : undefined;
          return (
            <div
              key={i}
              class={`line${l.highlighted ? ` hl ${notes.get(l.anchor ?? '')?.severity ?? ''}` : ''}`}
              data-path={l.path}
            >
              <span class="code">
                {'  '.repeat(l.depth)}
                {l.key !== null && <span class="key">{l.key}</span>}
                {l.key !== null && ': '}
                <span class={scalarClass(l.text)}>{l.text}</span>
                {l.comma && ','}
              </span>
              {note && (
                <span class={`note ${note.severity}`} data-field={l.anchor}>
                  {note.text}
                </span>
              )}
            </div>
          );
        })}
      </pre>
      {absent.length > 0 && (
        <ul class="absent">
          {absent.map((p) => (
            <li key={p} class={`note ${notes.get(p)?.severity ?? 'failed'}`} data-field={p}>
              <code>{p}</code> is not in the event{notes.get(p) ? `: ${notes.get(p)!.text}` : ''}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function scalarClass(text: string): string {
  if (text.startsWith('"')) return 'str';
  if (text === 'true' || text === 'false' || text === 'null') return 'lit';
  if (/^-?\d/.test(text)) return 'num';
  return 'punct';
}
