/**
 * Runs `work` on the items of `source` with at most `limit` running at once and yields the answers in
 * source order. At most `2 * limit` items are held (running or finished but not yet yielded), so memory is
 * bounded whatever the source's length, while a slow item does not stop the others from starting (C57).
 * `work` must not reject.
 */
export async function* orderedPool<T, R>(
  source: AsyncIterable<T> | Iterable<T>,
  limit: number,
  work: (item: T) => Promise<R>,
): AsyncGenerator<R> {
  const it =
    Symbol.asyncIterator in source
      ? (source as AsyncIterable<T>)[Symbol.asyncIterator]()
      : (source as Iterable<T>)[Symbol.iterator]();
  const held: { done: boolean; value?: R }[] = [];
  let running = 0;
  let exhausted = false;
  let wake: (() => void) | null = null;
  const signal = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  while (true) {
    while (!exhausted && running < limit && held.length < 2 * limit) {
      const next = await it.next();
      if (next.done) {
        exhausted = true;
        break;
      }
      const slot: { done: boolean; value?: R } = { done: false };
      held.push(slot);
      running++;
      void work(next.value).then((value) => {
        slot.value = value;
        slot.done = true;
        running--;
        signal();
      });
    }
    if (held.length === 0) return;
    const head = held[0]!;
    if (head.done) {
      held.shift();
      yield head.value as R;
      continue;
    }
    await new Promise<void>((r) => {
      wake = r;
    });
  }
}
