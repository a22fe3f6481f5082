import type { Env } from './env.ts';

export async function runScheduled(_cron: string, _time: number, _env: Env): Promise<void> {}
