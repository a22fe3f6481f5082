/**
 * Applies `migrations/*.sql` to a D1 binding, in file-name order, as `wrangler d1 migrations apply`
 * does. Statements are split on drizzle's `--> statement-breakpoint`, then on `;` at a line end
 * outside `BEGIN … END` blocks (triggers).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { D1Database } from '@cloudflare/workers-types';
import { ROOT } from './bundle.ts';

export function splitSql(sql: string): string[] {
  const out: string[] = [];
  for (const chunk of sql.split(/-->\s*statement-breakpoint/)) {
    let current = '';
    let depth = 0;
    for (const line of chunk.split('\n')) {
      const code = line.replace(/--.*$/, '');
      if (/\bBEGIN\b/i.test(code) && !/\bBEGIN\s+TRANSACTION\b/i.test(code)) depth++;
      if (/^\s*END\s*;?\s*$/i.test(code)) depth = Math.max(0, depth - 1);
      current += `${line}\n`;
      if (depth === 0 && /;\s*$/.test(code)) {
        if (current.trim()) out.push(current.trim());
        current = '';
      }
    }
    if (current.replace(/--.*$/gm, '').trim()) out.push(current.trim());
  }
  return out.filter((s) => s.replace(/--.*$/gm, '').trim() !== '');
}

export function migrationFiles(): string[] {
  const dir = join(ROOT, 'migrations');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => join(dir, f));
}

export async function applyMigrations(db: D1Database): Promise<number> {
  let count = 0;
  for (const file of migrationFiles()) {
    const statements = splitSql(readFileSync(file, 'utf8'));
    if (statements.length === 0) continue;
    await db.batch(statements.map((s) => db.prepare(s)));
    count += statements.length;
  }
  return count;
}
