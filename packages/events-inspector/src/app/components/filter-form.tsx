import type { ComponentChildren } from 'preact';

export interface Field {
  key: string;
  label: string;
  /** A select when given: [value, label] pairs, the first usually '' for "any". */
  options?: [string, string][];
  placeholder?: string;
  list?: string;
  /** What the input accepts (a number where the operation's query takes an integer, C107). */
  pattern?: string;
}

interface Props {
  fields: Field[];
  values: Record<string, string | undefined>;
  onApply: (values: Record<string, string>) => void;
  children?: ComponentChildren;
}

/** A row of filters; applying it writes them to the URL hash (the page then reloads the list). */
export function FilterForm({ fields, values, onApply, children }: Props) {
  const submit = (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    const out: Record<string, string> = {};
    for (const f of fields) out[f.key] = String(data.get(f.key) ?? '').trim();
    onApply(out);
  };
  return (
    <form class="filters" onSubmit={submit}>
      {fields.map((f) => (
        <label key={f.key} htmlFor={`filter-${f.key}`}>
          <span>{f.label}</span>
          {f.options ? (
            <select id={`filter-${f.key}`} name={f.key} value={values[f.key] ?? ''}>
              {f.options.map(([v, l]) => (
                <option key={v} value={v}>
                  {l}
                </option>
              ))}
            </select>
          ) : (
            <input
              id={`filter-${f.key}`}
              name={f.key}
              value={values[f.key] ?? ''}
              placeholder={f.placeholder ?? 'any'}
              list={f.list}
              pattern={f.pattern}
              autocomplete="off"
            />
          )}
        </label>
      ))}
      <button type="submit">Apply</button>
      {children}
    </form>
  );
}
