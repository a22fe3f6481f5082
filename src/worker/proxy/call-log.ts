/**
 * What the proxy did on each call of a session — appended messages, stage reports, the journal,
 * the upstream's status and usage, overflow recovery — kept in the session object's storage for the
 * last `MAX_CALLS` calls and read back through `GET /v1/proxy/sessions/:session/calls/:call`.
 * Nothing of the request's credentials is ever part of a record.
 */
import type { JournalEntry, RunEstimate, StageReport, Usage } from '../../core/index.ts';
import type { ProviderId } from './protocol.ts';

/** @default 100 calls per session */
export const MAX_CALLS = 100;

export interface CallRecord {
  id: string;
  /** Ms since epoch. */
  at: number;
  provider: ProviderId;
  model: string;
  stream: boolean;
  /** Messages of the client's history that were new to the log. */
  appended: number;
  /** The client's history left the log's path (an edited or regenerated turn). */
  diverged: boolean;
  estimate: RunEstimate;
  reports: StageReport[];
  journal: JournalEntry[];
  overflow?: {
    error: string;
    retry: boolean;
    /** The window the provider's error stated, when the session adopted it. */
    window?: number | undefined;
    estimate: RunEstimate;
    journal: JournalEntry[];
  };
  upstream?: { status: number; usage?: Usage; logged: boolean };
}

/** The part of Durable Object storage the log uses. */
export interface CallStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  delete(keys: string[]): Promise<number>;
}

const INDEX = 'proxy:calls';
const callKey = (id: string) => `proxy:call:${id}`;

export interface CallLog {
  put(record: CallRecord): Promise<void>;
  update(id: string, patch: Partial<CallRecord>): Promise<void>;
  get(id: string): Promise<CallRecord | undefined>;
  /** The kept records, oldest first. */
  list(): Promise<CallRecord[]>;
}

const ABANDONED = 'proxy:abandoned';

/** The proxy's state in a session object's storage: the call log and the seq ranges taken back. */
export function createProxyStorage(storage: CallStorage) {
  // The ranges are read once; this object is their only writer.
  let ranges: Array<[number, number]> | undefined;
  const abandoned = async () => {
    ranges ??= (await storage.get<Array<[number, number]>>(ABANDONED)) ?? [];
    return ranges;
  };
  return {
    calls: createCallLog(storage),
    abandoned,
    async abandon(fromSeq: number, toSeq: number) {
      const next: Array<[number, number]> = [...(await abandoned()), [fromSeq, toSeq]];
      await storage.put(ABANDONED, next);
      ranges = next;
    },
  };
}

export function createCallLog(storage: CallStorage, max = MAX_CALLS): CallLog {
  return {
    async put(record) {
      const index = (await storage.get<string[]>(INDEX)) ?? [];
      const next = [...index.filter((id) => id !== record.id), record.id];
      const dropped = next.splice(0, Math.max(0, next.length - max));
      await storage.put(callKey(record.id), record);
      await storage.put(INDEX, next);
      if (dropped.length > 0) await storage.delete(dropped.map(callKey));
    },
    async update(id, patch) {
      const record = await storage.get<CallRecord>(callKey(id));
      if (record) await storage.put(callKey(id), { ...record, ...patch });
    },
    get: (id) => storage.get<CallRecord>(callKey(id)),
    async list() {
      const index = (await storage.get<string[]>(INDEX)) ?? [];
      const records = await Promise.all(index.map((id) => storage.get<CallRecord>(callKey(id))));
      return records.filter((r): r is CallRecord => r !== undefined);
    },
  };
}
