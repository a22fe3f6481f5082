/**
 * Timeouts that measure the other side's silence, not this isolate's: a plain `setTimeout` fired
 * after a long blocking task (another call's work on the same thread) reads as silence what was only
 * the isolate being busy — the data may be waiting in the socket, its read queued behind the timer.
 * Here the wait is counted in ticks: a gap in which this isolate could not run is never taken for
 * silence, and a read that was ready during it
 * is delivered before the wait can run out: a late tick counts as one tick and never ends the wait.
 */

export const SILENT = Symbol('silent');
/** What `withinSilence` gives when its `stop` check said so. */
export const STOPPED = Symbol('stopped');

/** The tick: a quarter of the wait, from 25 ms to 1 s. */
export function silenceTick(ms: number): number {
  return Math.min(1000, Math.max(25, Math.floor(ms / 4)));
}

/**
 * `promise`, or `SILENT` once `ms` passed with this isolate running and `promise` still pending, or
 * `STOPPED` at the first tick where `stop()` is true (a check run by this request's own timer, so it may
 * read state another request set: workerd lets no request touch another's I/O objects).
 */
export function withinSilence<T>(promise: Promise<T>, ms: number): Promise<T | typeof SILENT>;
export function withinSilence<T>(
  promise: Promise<T>,
  ms: number,
  stop: () => boolean,
): Promise<T | typeof SILENT | typeof STOPPED>;
export async function withinSilence<T>(
  promise: Promise<T>,
  ms: number,
  stop?: () => boolean,
): Promise<T | typeof SILENT | typeof STOPPED> {
  const tick = silenceTick(ms);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const silent = new Promise<typeof SILENT | typeof STOPPED>((resolve) => {
    let waited = 0;
    let last = performance.now();
    const step = () => {
      if (stop?.()) return resolve(STOPPED);
      const now = performance.now();
      const late = now - last > 2 * tick;
      waited += late ? tick : now - last;
      last = now;
      if (waited >= ms && !late) resolve(SILENT);
      else timer = setTimeout(step, Math.max(1, Math.min(tick, ms - waited)));
    };
    timer = setTimeout(step, Math.min(tick, ms));
  });
  try {
    return await Promise.race([promise, silent]);
  } finally {
    clearTimeout(timer);
  }
}
