/**
 * The session object's write queue: calls run one at a time, in arrival order (D1 calls and
 * summarizer fetches open the object's input gate, so the gate alone would let them interleave). A
 * call may hand back its value before a write of its own has finished (`after`): the queue holds the
 * next call until that write settled, so every later call of the session reads it.
 */

export interface Queued<T> {
  value: T;
  /** A write still under way once `value` is known; the next call waits for it. */
  after?: Promise<unknown> | undefined;
}

export interface WriteQueue {
  /** Runs `fn` after every call queued before it (and their writes); its value as soon as it has one. */
  run<T>(fn: () => Promise<Queued<T>>): Promise<T>;
}

/** `onFailure`: called when a call or its `after` fails (the object then forgets its cached view). */
export function createWriteQueue(options: { onFailure: () => void }): WriteQueue {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run<T>(fn: () => Promise<Queued<T>>): Promise<T> {
      const guarded = async () => {
        try {
          return await fn();
        } catch (error) {
          options.onFailure();
          throw error;
        }
      };
      const run = tail.then(guarded, guarded);
      tail = run.then(
        (r) => r.after?.catch(options.onFailure),
        () => undefined,
      );
      return run.then((r) => r.value);
    },
  };
}
