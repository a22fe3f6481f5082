/**
 * The kill -9 phase of `npm run bench:faults`: `sessions` agents each run `calls` proxied turns one
 * after another (each call sends the agent's whole history, as an SDK does); when `killAt` calls have
 * been answered, the whole `npm start` process tree gets SIGKILL mid-burst. The service is started
 * again on the same local state, and each session's log is read back: every turn whose call was
 * answered 200 (acknowledged) must be stored; a turn the kill interrupted may be stored or not.
 */
import { loadavg } from 'node:os';

export interface KillPhaseOptions {
  base: string;
  key: string;
  sessions: number;
  calls: number;
  /** Answered calls, over all sessions, after which the service is killed. */
  killAt: number;
  kill(): void;
  restart(): Promise<void>;
}

export interface KillPhaseResult {
  acknowledged: number;
  /** Acknowledged turns whose user message is in the log after the restart. */
  stored: number;
  /** Acknowledged turns missing from the log. */
  missing: number;
  /** Turns in the log that the client never saw answered (the kill cut their answer). */
  unacknowledgedStored: number;
  /** Answers of acknowledged turns in the log (logged after the reply, so a kill may lose one). */
  answersStored: number;
  /** Calls the kill cut (no answer: the connection failed). */
  interrupted: number;
  /** The service stopped answering after the kill (the whole tree died, not only the npm process). */
  wentDown: boolean;
  load: number;
}

type Msg = { role: string; content: string };

const OPENAI = '/v1/proxy/openai/chat/completions';

function textOf(message: { parts?: Array<{ type: string; text?: string }> }): string {
  return (message.parts ?? [])
    .filter((p) => p.type === 'text')
    .map((p) => p.text ?? '')
    .join('');
}

export async function killPhase(o: KillPhaseOptions): Promise<KillPhaseResult> {
  const headers = (session: string) => ({
    authorization: `Bearer ${o.key}`,
    'content-type': 'application/json',
    'x-ctxkit-session': session,
  });
  const acked = new Map<string, Set<string>>();
  let answered = 0;
  let interrupted = 0;
  let killed = false;
  const load = loadavg()[0]!;
  await Promise.all(
    Array.from({ length: o.sessions }, async (_, s) => {
      const session = `kill-${s}`;
      const mine = new Set<string>();
      acked.set(session, mine);
      const history: Msg[] = [];
      for (let n = 0; n < o.calls && !killed; n++) {
        const user = { role: 'user', content: `${session} turn ${n}` };
        let res: Response;
        try {
          res = await fetch(o.base + OPENAI, {
            method: 'POST',
            headers: headers(session),
            body: JSON.stringify({ model: 'gpt-4o', messages: [...history, user] }),
          });
        } catch {
          interrupted++;
          return;
        }
        if (res.status !== 200) {
          await res.text().catch(() => '');
          continue;
        }
        let body: { choices?: Array<{ message?: { content?: string } }> };
        try {
          body = (await res.json()) as typeof body;
        } catch {
          interrupted++;
          return;
        }
        const answer = body.choices?.[0]?.message?.content ?? '';
        mine.add(user.content);
        history.push(user, { role: 'assistant', content: answer });
        if (++answered >= o.killAt && !killed) {
          killed = true;
          o.kill();
        }
      }
    }),
  );
  if (!killed) o.kill();
  let wentDown = false;
  for (let i = 0; i < 50 && !wentDown; i++) {
    try {
      await fetch(`${o.base}/health`, { signal: AbortSignal.timeout(500) });
      await new Promise((r) => setTimeout(r, 100));
    } catch {
      wentDown = true;
    }
  }
  await o.restart();
  let acknowledged = 0;
  let stored = 0;
  let unacknowledgedStored = 0;
  let answersStored = 0;
  for (const [session, mine] of acked) {
    const res = await fetch(`${o.base}/v1/sessions/${session}/messages`, { headers: headers(session) });
    const rows = res.ok
      ? (
          (await res.json()) as {
            messages: Array<{ message: { role: string; parts?: Array<{ type: string; text?: string }> } }>;
          }
        ).messages
      : [];
    const users = new Set(rows.filter((r) => r.message.role === 'user').map((r) => textOf(r.message)));
    acknowledged += mine.size;
    for (const u of mine) if (users.has(u)) stored++;
    for (const u of users) if (!mine.has(u)) unacknowledgedStored++;
    answersStored += Math.min(mine.size, rows.filter((r) => r.message.role === 'assistant').length);
  }
  return {
    acknowledged,
    stored,
    missing: acknowledged - stored,
    unacknowledgedStored,
    answersStored,
    interrupted,
    wentDown,
    load,
  };
}
