import type { Metric, Registry } from 'prom-client';

// Counters and histograms of the request path (issue 25, C77). prom-client's own classes check and hash the
// label object and turn each bucket bound into a property name on every call: about half a microsecond a
// call, six calls a request. These keep one entry per label set, found by its values joined, and add to
// plain numbers; prom-client's registry still renders them (they answer `get()` as its metrics do), so
// /metrics is unchanged.

type Labels<L extends string> = Record<L, string | number>;

interface MetricConfig<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  registers: Registry[];
}

interface Value {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

abstract class HotSeries<L extends string, E> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  readonly aggregator = 'sum';
  readonly #entries = new Map<string, { labels: Labels<L>; entry: E }>();

  constructor(c: MetricConfig<L>) {
    this.name = c.name;
    this.help = c.help;
    this.labelNames = c.labelNames ?? [];
    for (const r of c.registers) r.registerMetric(this as unknown as Metric);
  }

  protected abstract create(): E;

  protected entry(labels: Labels<L> | undefined): E {
    const names = this.labelNames;
    let key = '';
    // One label set per combination of values; the label names are fixed per metric.
    for (let i = 0; i < names.length; i++) key += `${labels?.[names[i] as L]}\u0000`;
    let e = this.#entries.get(key);
    if (!e) {
      const copy = {} as Labels<L>;
      for (const n of names) copy[n] = labels?.[n] ?? '';
      e = { labels: copy, entry: this.create() };
      this.#entries.set(key, e);
    }
    return e.entry;
  }

  protected each(): Iterable<{ labels: Labels<L>; entry: E }> {
    // A series without labels is shown from the start, at zero, as prom-client shows it.
    if (this.labelNames.length === 0 && this.#entries.size === 0) this.entry(undefined);
    return this.#entries.values();
  }

  reset(): void {
    this.#entries.clear();
  }
}

/** A Prometheus counter: `inc(labels, n)`. */
export class HotCounter<L extends string = never> extends HotSeries<L, { n: number }> {
  readonly type = 'counter';

  protected create() {
    return { n: 0 };
  }

  inc(labels?: Labels<L>, n = 1): void {
    this.entry(labels).n += n;
  }

  async get() {
    const values: Value[] = [];
    for (const { labels, entry } of this.each()) values.push({ value: entry.n, labels });
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

/** A Prometheus histogram with fixed buckets: `observe(labels, value)`, or `observe(value)` without labels. */
export class HotHistogram<L extends string = never> extends HotSeries<
  L,
  { counts: Float64Array; sum: number; count: number }
> {
  readonly type = 'histogram';
  readonly #bounds: readonly number[];

  constructor(c: MetricConfig<L> & { buckets: readonly number[] }) {
    super(c);
    this.#bounds = [...c.buckets].sort((a, b) => a - b);
  }

  protected create() {
    return { counts: new Float64Array(this.#bounds.length), sum: 0, count: 0 };
  }

  observe(labels: Labels<L> | number, value?: number): void {
    const v = typeof labels === 'number' ? labels : (value as number);
    if (!Number.isFinite(v)) return;
    const e = this.entry(typeof labels === 'number' ? undefined : labels);
    const b = this.#bounds;
    for (let i = 0; i < b.length; i++)
      if (v <= (b[i] as number)) {
        (e.counts as Float64Array)[i] = (e.counts[i] as number) + 1;
        break;
      }
    e.sum += v;
    e.count++;
  }

  async get() {
    const values: Value[] = [];
    const bucket = `${this.name}_bucket`;
    for (const { labels, entry } of this.each()) {
      let cumulative = 0;
      this.#bounds.forEach((le, i) => {
        cumulative += entry.counts[i] as number;
        values.push({ value: cumulative, labels: { le, ...labels }, metricName: bucket });
      });
      values.push({ value: entry.count, labels: { le: '+Inf', ...labels }, metricName: bucket });
      values.push({ value: entry.sum, labels, metricName: `${this.name}_sum` });
      values.push({ value: entry.count, labels, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}
