// Publications of one channel on their way to the database. They are stored by one write at a
// time, in the order they were asked for; those asked for together (by one task of the event
// loop) or while the previous write runs go together in the next one (group commit). A burst then takes
// one statement, one lock of the channel row and one commit instead of one each, and its
// announcements reach every instance together, so each socket gets the burst as one frame. A
// lone publication waits for nothing but the end of the task that asked for it.

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

export class StoreQueue<T, R> {
  #waiting: Waiting<T, R>[] = [];
  #running = false;

  /**
   * `store` writes a batch and answers one result per item, in order; a failure fails the whole
   * batch (it was one statement). At most `max` items per batch. `onIdle` is called each time
   * nothing is left waiting or being written.
   */
  constructor(
    private readonly store: (items: T[]) => Promise<R[]>,
    private readonly max: number,
    private readonly onIdle: () => void = () => undefined,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      if (this.#running) return;
      this.#running = true;
      // After the current task's synchronous work: the publications it asks for join this batch.
      queueMicrotask(() => void this.#drain());
    });
  }

  async #drain(): Promise<void> {
    while (this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0, this.max);
      try {
        const results = await this.store(batch.map((w) => w.item));
        batch.forEach((w, i) => w.resolve(results[i]!));
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    this.#running = false;
    this.onIdle();
  }
}
