/**
 * Default-mode search options with every unit and query-signal weight at 0, no statement query, and
 * the list weights equal to the general ones (keyword 0.5, facts 0, neighbour 0.5) with no cap: a
 * conversation then ranks as plain chunks do.
 */
import type { SearchOptions } from '../../src/core/index.ts';

const ZERO = ['window', 'session', 'fact', 'speaker', 'time', 'when', 'statement', 'listFact'] as const;

export const SEARCH_OFF: SearchOptions = {
  ...Object.fromEntries(ZERO.map((k) => [`${k}Weight`, 0])),
  listKeywordWeight: 0.5,
  listNeighbourWeight: 0.5,
  listPerSession: 0,
};
