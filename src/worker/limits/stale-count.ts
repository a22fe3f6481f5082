/**
 * A total counted from the stores at most every `recountMs`, plus what was let through (or given
 * back) since the count started: the tenant object's stored bytes and its sessions. The first count
 * is awaited; later ones run while the last total is used, and a failed one keeps it.
 */
export class StaleCount {
  private counted: { n: number; at: number } | undefined;
  /** Let through (+) or given back (−) since the last count started. */
  private added = 0;
  private recount: Promise<void> | undefined;

  constructor(
    private readonly count: () => Promise<number>,
    /** What is counted, for the log line of a failed count. */
    private readonly what: string,
  ) {}

  /** When the total was last counted (0: never). */
  get countedAt(): number {
    return this.counted?.at ?? 0;
  }

  /** The counted total plus what was let through since; counts again when the count is stale. */
  async used(recountMs: number): Promise<number> {
    const stale = !this.counted || Date.now() - this.counted.at >= recountMs;
    if (stale && !this.recount) {
      const before = this.added;
      const at = Date.now();
      this.recount = this.count()
        .then((n) => {
          this.counted = { n, at };
          // What was let through while counting may be in the count or not: kept, to err on the safe side.
          this.added -= before;
        })
        .finally(() => {
          this.recount = undefined;
        });
      this.recount.catch((e: unknown) => console.error(`ctxkit limits: counting ${this.what} failed:`, e));
    }
    if (!this.counted && this.recount) await this.recount;
    return (this.counted?.n ?? 0) + this.added;
  }

  /** Counts `n` more (or fewer); before the first count nothing: the count will see them. */
  add(n: number): void {
    if (this.counted) this.added += n;
  }

  /** Counts `n` more, let through after `used` (a count is in place, or awaited). */
  take(n: number): void {
    this.added += n;
  }

  /** Counts again from the stores now; the total it gives. */
  async now(): Promise<{ n: number; at: number }> {
    if (this.recount) await this.recount.catch(() => undefined);
    const at = Date.now();
    const before = this.added;
    const n = await this.count();
    this.counted = { n, at };
    this.added -= before;
    return { n: n + this.added, at };
  }
}
