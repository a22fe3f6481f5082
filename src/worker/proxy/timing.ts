/**
 * Per-phase timings of a proxied call, for `npm run bench:proxy`: with `PROXY_TIMING=1` the answer
 * carries a `server-timing` header (`phase;dur=ms, …`) covering the Worker's phases and the session
 * object's. Off by default: a timer that is off records nothing and costs one branch per phase.
 */

export interface PhaseTimer {
  /** Closes the phase running since the previous mark (or the start) under `name`. */
  mark(name: string): void;
  /** Adds phases measured elsewhere (the session object's), prefixed. */
  add(prefix: string, phases: ReadonlyArray<[string, number]> | undefined): void;
  readonly phases: Array<[string, number]>;
  readonly on: boolean;
}

const OFF: PhaseTimer = { mark() {}, add() {}, phases: [], on: false };

export function phaseTimer(on: boolean): PhaseTimer {
  if (!on) return OFF;
  let last = performance.now();
  const phases: Array<[string, number]> = [];
  return {
    phases,
    on: true,
    mark(name) {
      const now = performance.now();
      phases.push([name, now - last]);
      last = now;
    },
    add(prefix, more) {
      for (const [n, ms] of more ?? []) phases.push([`${prefix}${n}`, ms]);
    },
  };
}

export function timingOn(env: { PROXY_TIMING?: unknown }): boolean {
  return env.PROXY_TIMING === '1';
}

/** `server-timing` value: `name;dur=1.23, …`. */
export function serverTiming(phases: ReadonlyArray<[string, number]>): string {
  return phases.map(([n, ms]) => `${n};dur=${ms.toFixed(2)}`).join(', ');
}
