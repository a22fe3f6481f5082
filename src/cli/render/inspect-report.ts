/** Text rendering of `ctxcheck inspect`: totals, a usage bar, per-role and per-kind tables, largest items. */
export interface InspectReport {
  file: string;
  format: string;
  preset: string;
  counter: string;
  messages: number;
  turns: number;
  tokens: number;
  /** Sum of the counter over every message (the base of the shares). */
  counted: number;
  anchored: boolean;
  window: number;
  usable: number;
  thresholds: { warning: number; autoCompact: number; blocking: number };
  level: string;
  byRole: Array<{ role: string; messages: number; tokens: number }>;
  byKind: Array<{ kind: string; parts: number; tokens: number }>;
  largest: Array<{ id: string; role: string; label: string; tokens: number; preview: string }>;
  next?: {
    reports: Array<{
      stage: string;
      status: string;
      tokensBefore: number;
      tokensAfter: number;
      detail?: string;
      error?: string;
    }>;
    messagesBefore: number;
    messagesAfter: number;
    tokensBefore: number;
    tokensAfter: number;
    level: string;
    journal: number;
    removed: number;
  };
  notes: string[];
  /**
   * The harness's last compaction (`compact_boundary`): the report counts the messages after it; `left`
   * earlier ones are not in the context (`--whole` counts them).
   */
  boundary?: {
    index: number;
    left: number;
    source: string;
    line?: number;
    trigger?: string;
    preTokens?: number;
  };
  /** The provider's own count of the last request (input and cache), at the newest reported usage. */
  recorded?: { id: string; tokens: number };
}

/** One line on the compaction boundary the report counts from. */
export function boundaryLine(b: NonNullable<InspectReport['boundary']>): string {
  const how = [b.trigger, b.preTokens !== undefined ? `${fmt(b.preTokens)} tokens before it` : '']
    .filter(Boolean)
    .join(', ');
  const where =
    b.source === 'compact_boundary'
      ? `a compact_boundary${b.line !== undefined ? ` (line ${b.line})` : ''}`
      : 'its summary message (isCompactSummary)';
  return `the harness compacted this session before message ${fmt(b.index + 1)}${how ? ` (${how})` : ''}, marked by ${where}: counted from there; the ${fmt(b.left)} messages before it are not in the context (--whole counts them)`;
}

const fmt = (n: number) => n.toLocaleString('en-US');
const pct = (n: number, of: number) => `${of === 0 ? '0.0' : ((n / of) * 100).toFixed(1)}%`;

/** `[██████░░░░|░░]` with a tick at the warning level; width in cells. */
export function usageBar(tokens: number, usable: number, warning: number, width = 40): string {
  const filled = Math.min(width, Math.round((tokens / Math.max(1, usable)) * width));
  const tick = Math.min(width - 1, Math.round((warning / Math.max(1, usable)) * width));
  let bar = '';
  for (let i = 0; i < width; i++) bar += i < filled ? '█' : i === tick ? '┆' : '░';
  return `[${bar}]`;
}

function table(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    `  ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')}`;
  return [line(head), ...rows.map(line)];
}

export function renderInspect(r: InspectReport): string[] {
  const out = [
    `${r.file}  (${r.format}, ${r.boundary ? `${fmt(r.messages)} of ${fmt(r.messages + r.boundary.left)} messages, those after its compaction boundary` : `${fmt(r.messages)} messages`}, ${fmt(r.turns)} turns; counter ${r.counter})`,
    '',
    `context  ${fmt(r.tokens)} tokens${r.anchored ? ` (anchored to reported usage; the counter alone says ${fmt(r.counted)})` : ''} of ${fmt(r.usable)} usable (window ${fmt(r.window)})`,
    `${usageBar(r.tokens, r.usable, r.thresholds.warning)} ${pct(r.tokens, r.usable)}  level ${r.level}`,
    `levels   warn ≥ ${fmt(r.thresholds.warning)}, compact ≥ ${fmt(r.thresholds.autoCompact)}, block ≥ ${fmt(r.thresholds.blocking)}`,
    ...(r.boundary ? [`boundary ${boundaryLine(r.boundary)}`] : []),
    ...(r.recorded
      ? [
          `recorded ${fmt(r.recorded.tokens)} input tokens by the provider's usage at ${r.recorded.id} (it also counts the system prompt and tool schemas the file does not hold)`,
        ]
      : []),
    '',
    'by role',
    ...table(
      ['role', 'messages', 'tokens', 'share'],
      r.byRole.map((x) => [x.role, fmt(x.messages), fmt(x.tokens), pct(x.tokens, r.counted)]),
    ),
    '',
    'by kind',
    ...table(
      ['kind', 'parts', 'tokens', 'share'],
      r.byKind.map((x) => [x.kind, fmt(x.parts), fmt(x.tokens), pct(x.tokens, r.counted)]),
    ),
    '',
    `largest items`,
    ...r.largest.map(
      (x, i) =>
        `  ${String(i + 1).padStart(2)}. ${fmt(x.tokens).padStart(8)}  ${x.id}  ${x.label}  ${x.preview}`,
    ),
  ];
  if (r.next) {
    const n = r.next;
    out.push('', `next pre-flight (preset ${r.preset})`);
    for (const s of n.reports) {
      const delta =
        s.tokensAfter !== s.tokensBefore ? `  ${fmt(s.tokensBefore)} → ${fmt(s.tokensAfter)}` : '';
      const why = s.error ? `  error: ${s.error}` : s.detail ? `  ${s.detail}` : '';
      out.push(`  ${s.stage.padEnd(26)} ${s.status.padEnd(8)}${delta}${why}`);
    }
    out.push(
      `  → ${fmt(n.messagesBefore)} → ${fmt(n.messagesAfter)} messages, ${fmt(n.tokensBefore)} → ${fmt(n.tokensAfter)} tokens (level ${n.level}); ${n.removed} removed, ${n.journal} journal entries`,
    );
  }
  for (const note of r.notes) out.push(`note: ${note}`);
  return out;
}
