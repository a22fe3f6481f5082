/**
 * LoCoMo conversations (snap-research/LoCoMo, CC BY-NC 4.0: loaded at run time, never copied):
 * `[{ sample_id, conversation: { session_N: [{speaker, dia_id, text, blip_caption?}],
 * session_N_date_time }, qa: [{question, evidence, category}] }]`.
 */
import { readFile } from 'node:fs/promises';
import * as z from 'zod';
import { type Conversation, dateOfDay, timeRanges } from '../../core/index.ts';

const turnSchema = z.object({
  speaker: z.string(),
  dia_id: z.string(),
  text: z.string(),
  blip_caption: z.string().optional(),
});

const qaSchema = z.object({
  question: z.string(),
  evidence: z.array(z.string()).default([]),
  category: z.number().int(),
});

const sampleSchema = z.object({
  sample_id: z.string(),
  conversation: z.record(z.string(), z.unknown()),
  qa: z.array(qaSchema),
});

export interface LocomoTurn {
  diaId: string;
  speaker: string;
  text: string;
  session: number;
  /** The session's date as written (`1:56 pm on 8 May, 2023`). */
  date: string;
}

export interface LocomoQuestion {
  question: string;
  evidence: string[];
  category: number;
}

export interface LocomoConversation {
  id: string;
  turns: LocomoTurn[];
  questions: LocomoQuestion[];
}

export const LOCOMO_CATEGORIES: Record<number, string> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
};

/** Evidence ids can be malformed (`'D8:6; D9:17'`): split on `[;\s]+`. */
export function splitEvidence(evidence: readonly string[]): string[] {
  return evidence.flatMap((e) => e.split(/[;\s]+/)).filter((e) => e !== '');
}

export function parseLocomo(data: unknown): LocomoConversation[] {
  const samples = z.array(sampleSchema).parse(data);
  return samples.map((s) => {
    const turns: LocomoTurn[] = [];
    for (const [key, value] of Object.entries(s.conversation)) {
      const m = /^session_(\d+)$/.exec(key);
      if (!m || !Array.isArray(value)) continue;
      const session = Number(m[1]);
      const date = String(s.conversation[`session_${session}_date_time`] ?? '');
      for (const raw of value) {
        const t = turnSchema.parse(raw);
        const text = t.blip_caption ? `${t.text} [shares a photo: ${t.blip_caption}]` : t.text;
        turns.push({ diaId: t.dia_id, speaker: t.speaker, text, session, date });
      }
    }
    turns.sort((a, b) => a.session - b.session);
    const questions = s.qa.map((q) => ({
      question: q.question,
      evidence: splitEvidence(q.evidence),
      category: q.category,
    }));
    return { id: s.sample_id, turns, questions };
  });
}

export async function loadLocomo(path: string): Promise<LocomoConversation[]> {
  return parseLocomo(JSON.parse(await readFile(path, 'utf8')));
}

/** `1:56 pm on 8 May, 2023` → `2023-05-08`; null when unreadable. */
export function locomoDate(text: string): string | null {
  const day = timeRanges(text).find((r) => r.from === r.to);
  return day ? dateOfDay(day.from) : null;
}

/** The conversation as `indexConversation` takes it: sessions `session_N` with their dates, turns by `dia_id`. */
export function toConversation(conv: LocomoConversation): Conversation {
  const sessions = new Map<
    number,
    { id: string; date: string | null; turns: { id: string; speaker: string; text: string }[] }
  >();
  for (const t of conv.turns) {
    const s = sessions.get(t.session) ?? { id: `session_${t.session}`, date: locomoDate(t.date), turns: [] };
    sessions.set(t.session, s);
    s.turns.push({ id: t.diaId, speaker: t.speaker, text: t.text });
  }
  return { id: conv.id, sessions: [...sessions.values()] };
}

/** Ms since epoch of the day after the conversation's last session: when its questions are asked. */
export function askedAt(conv: LocomoConversation): number {
  let last = 0;
  for (const t of conv.turns) {
    const d = locomoDate(t.date);
    if (d !== null) last = Math.max(last, Date.parse(`${d}T00:00:00Z`));
  }
  return last + 86_400_000;
}
