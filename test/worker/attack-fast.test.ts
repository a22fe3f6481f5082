/**
 * The attack suite's fast cases (bench/attack/*.ts with `fast: true`) against `npm start`, as
 * `npm run bench:attack -- --fast` runs them; the slow ones run in `npm run bench:attack`.
 */
import { describe, expect, it } from 'vitest';
import { runSuite } from '../../bench/attack/suite.ts';
import { freePort } from '../support/free-port.ts';

describe('bench:attack (fast cases)', () => {
  it('holds every fast case against npm start', { timeout: 600_000 }, async () => {
    const outcomes = await runSuite({ port: await freePort(), select: (c) => c.fast === true });
    expect(outcomes.length).toBeGreaterThan(0);
    expect(outcomes.filter((o) => !o.held).map((o) => `${o.name}: ${o.detail}`)).toEqual([]);
  });
});
