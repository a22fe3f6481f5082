/** Polls `fn` every 50 ms until `ok` holds of its value (5 s at most): what a waitUntil wrote, read back. */
export async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, tries = 100): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await fn();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`condition not met in ${(tries * 50) / 1000} s`);
}
