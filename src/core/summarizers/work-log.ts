/**
 * What the agent did, read off its tool calls for the deterministic summary — the facts a model
 * continuing the session needs and a list of names cannot say: which files it changed (and with what),
 * which calls failed and whether a later call succeeded, what it recorded as done (a commit, a closed
 * task, a push), what is still pending, and the rest of its calls.
 */
import { pairToolCalls } from '../invariants/pairing.ts';
import { outputText } from '../messages/text.ts';
import type { JsonValue, Message } from '../messages/types.ts';
import { clip, isWriteTool, keyArg, oneLine, shellWrites } from './extract.ts';

export interface WorkLog {
  /** One line per changed file: `path (Edit ×3, Write)`, in order of first change. */
  changed: string[];
  /** Failed calls: `label — first sentence of the error`, marked when the same call later succeeded. */
  errors: string[];
  /** Work recorded as done: `Committed: subject`, `Closed: ids (bd close)`, or the command. */
  done: string[];
  /** Calls with no result yet: `Pending: label`. */
  pending: string[];
  /** The other calls that succeeded, with counts, most recent last. */
  other: string[];
}

/** Commands that record work as done: a commit, a push, a merge, a closed issue or task, a release. */
const DONE =
  /\b(?:git (?:commit|push|merge|tag)|gh (?:pr (?:create|merge)|issue close|release create)|bd close|npm publish|(?:wrangler|vercel|fly) deploy)\b/;

function commandOf(args: JsonValue): string | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  const c = args.command ?? args.cmd;
  return typeof c === 'string' ? c : undefined;
}

/** A done command as one line: a commit's subject, the ids a close names, else the command. */
export function doneLine(command: string): string {
  const subject = /git commit\b[^\n]*?-m\s+(?:"\$\(cat <<'?EOF'?\s*)?["']?([^\n"']+)/.exec(command)?.[1];
  if (subject) return `Committed: ${clip(oneLine(subject), 160)}`;
  // The close's own arguments: up to a redirection, a pipe or the next command.
  const closed = /\b(bd close|gh issue close|gh pr merge)\s+((?:[\w.#-]+\s*)+)/.exec(
    command.split(/\s(?:\d?>|&&|\|\|?|;)/)[0]!,
  );
  if (closed) {
    const ids = closed[2]!.split(/\s+/).filter((x) => x !== '' && !x.startsWith('-'));
    const why = /--reason[= ]+["']([^"']+)/.exec(command)?.[1];
    return `Closed: ${ids.join(' ')} (${closed[1]})${why ? ` — ${clip(oneLine(why), 160)}` : ''}`;
  }
  return `Done: ${clip(oneLine(command), 160)}`;
}

/** What an error output says went wrong: its first line naming an error, else its first sentence. */
const ERROR_LINE =
  /error|fail|exception|fatal|denied|not found|no such|undefined|cannot|can't|invalid|expected|refused|rejected|missing|\*\*/i;

function reason(output: string): string {
  const line = output.split('\n').find((l) => ERROR_LINE.test(l));
  return clip(oneLine(line ?? output).split(/(?<=[.!?])\s/)[0] ?? '', 160);
}

/**
 * The folder every path is under (`/home/u/proj/`), when there are two or more paths and it is at
 * least two folders deep: the changed files are listed relative to it, once named.
 */
export function commonFolder(paths: readonly string[]): string {
  if (paths.length < 2) return '';
  let prefix = paths[0]!.slice(0, paths[0]!.lastIndexOf('/') + 1);
  for (const p of paths)
    while (prefix !== '' && !p.startsWith(prefix))
      prefix = prefix.slice(0, prefix.lastIndexOf('/', prefix.length - 2) + 1);
  return prefix.split('/').filter(Boolean).length >= 2 ? prefix : '';
}

export function workLog(messages: readonly Message[]): WorkLog {
  const { pairs } = pairToolCalls(messages);
  const changed = new Map<string, Map<string, number>>();
  const failed = new Map<string, { line: string; fixed: boolean }>();
  const done: string[] = [];
  const pending: string[] = [];
  const counts = new Map<string, number>();
  const change = (path: string, tool: string) => {
    const tools = changed.get(path) ?? new Map<string, number>();
    tools.set(tool, (tools.get(tool) ?? 0) + 1);
    changed.set(path, tools);
  };
  for (const pair of pairs) {
    const call = messages[pair.call.message]!.parts[pair.call.part]!;
    const args = call.type === 'tool-call' ? call.args : null;
    const arg = keyArg(args);
    const label = `${pair.name}${arg ? `: ${arg}` : ''}`;
    if (!pair.result) {
      pending.push(`Pending: ${label}`);
      continue;
    }
    const part = messages[pair.result.message]!.parts[pair.result.part]!;
    if (part.type === 'tool-result' && part.isError) {
      const why = reason(outputText(part.output));
      failed.delete(label); // re-insert: most recent last
      failed.set(label, { line: `${label}${why ? ` — ${why}` : ''}`, fixed: false });
      continue;
    }
    const earlier = failed.get(label);
    if (earlier) earlier.fixed = true;
    const command = commandOf(args);
    if (command && DONE.test(command)) {
      const line = doneLine(command);
      if (!done.includes(line)) done.push(line);
      continue;
    }
    // A write tool's key argument is the file it changes (`file_path`, `path`…).
    if (isWriteTool(pair.name) && arg) {
      change(arg, pair.name);
      continue;
    }
    const n = (counts.get(label) ?? 0) + 1;
    counts.delete(label);
    counts.set(label, n);
  }
  // Agents whose actions are shell blocks in their text (mini-swe-agent) change files there.
  for (const m of messages)
    if (m.role === 'assistant')
      for (const p of m.parts)
        if (p.type === 'text') for (const path of shellWrites(p.text)) change(path, 'shell');
  const under = commonFolder([...changed.keys()]);
  const uses = (tools: Map<string, number>) =>
    [...tools].map(([t, n]) => (n > 1 ? `${t} ×${n}` : t)).join(', ');
  return {
    changed: [
      ...(under ? [`(paths below are under ${under})`] : []),
      ...[...changed].map(([path, tools]) => `${path.slice(under.length)} (${uses(tools)})`),
    ],
    errors: [...failed.values()].map((f) => (f.fixed ? `${f.line} (fixed: it later succeeded)` : f.line)),
    done,
    pending,
    other: [...counts].map(([label, n]) => (n > 1 ? `${label} (×${n})` : label)),
  };
}
