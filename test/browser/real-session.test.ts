/**
 * A real Claude Code session in the context view: a trajectory of ../shared/data replayed through the
 * proxy of `npm start` call by call (support/replay.ts), with a small window so that ctxkit compacts on
 * the way, then read in Debian's chromium at 1280×800 and at a phone's 390×844: a compaction call opens
 * on what it changed, with the summary, the system prompt and the tool schemas whole; no element of any
 * view reaches past the screen's edge and no table is clipped; `ctxcheck inspect --html` of the same
 * session shows the same. Screenshots go to `screenshots/` (git-ignored; docs/ keeps two of them).
 *
 * Skips, saying so, without chromium or without the trajectory.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCli } from '../../src/cli/cli.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { overflowing, viewLoaded } from './support/page.ts';
import { REPLAY_SYSTEM, replayCalls, toolSchemas, wireMessages } from './support/replay.ts';
import {
  buildCommandMemory,
  findChromium,
  ROOT,
  type Service,
  SHOTS,
  spilledSession,
  startService,
} from './support/service.ts';

const CHROMIUM = findChromium();
/** A real Claude Code session (../shared/data/README.md). */
const TRAJECTORY = join(
  ROOT,
  '..',
  'shared/data/trajectories/claude-code/258c7280-ae70-4798-800f-63464d01a85d.json',
);
const REAL = existsSync(TRAJECTORY);
if (CHROMIUM && !REAL)
  console.warn(`test/browser/real-session: skipped — ${TRAJECTORY} is absent (see ../shared/data/README.md)`);
/** Calls replayed, and the window they are prepared for (small enough that ctxkit compacts on the way). */
const REPLAY_CALLS = 30;
const REPLAY_WINDOW = 32_000;

let s: Service;
let browser: Browser | undefined;
let callLink = '';
/** The replayed calls' journal links, in order. */
const replayed: string[] = [];

describe.skipIf(!CHROMIUM || !REAL)(
  'a real Claude Code session proxied through npm start, in chromium',
  () => {
    let page: Page;
    beforeAll(async () => {
      mkdirSync(SHOTS, { recursive: true });
      s = await startService();
      // A synthetic session with a spilled tool result, for a call page with every kind of row.
      callLink = await spilledSession(s);
      await buildCommandMemory(s);
      const messages = wireMessages(TRAJECTORY);
      const tools = toolSchemas(messages);
      const t0 = Date.now();
      for (const call of replayCalls(messages, REPLAY_CALLS)) {
        const reply = {
          kind: 'answer' as const,
          toolCalls: call.answer.toolCalls,
          ...(call.answer.text ? { text: call.answer.text } : {}),
        };
        replayed.push(
          await s.proxied(
            'cc-1',
            { messages: [{ role: 'system', content: REPLAY_SYSTEM }, ...call.history], tools },
            REPLAY_WINDOW,
            { reply },
          ),
        );
      }
      console.log(
        `test/browser/real-session: ${replayed.length} calls replayed in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
      );
      browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox'] });
      page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(`${s.base}/ui`);
      await page.evaluate((k) => sessionStorage.setItem('ctxkit-api-key', k), s.key);
    }, 600_000);
    afterAll(async () => {
      await browser?.close();
      await s?.stop();
    });

    it('replays every call without leaving the log’s path', async () => {
      expect(replayed).toHaveLength(REPLAY_CALLS);
      const view = (await (await s.api('/v1/sessions/cc-1/view')).json()) as {
        calls: Array<{ diverged: boolean; compacted: boolean }>;
      };
      expect(view.calls).toHaveLength(REPLAY_CALLS);
      expect(view.calls.filter((c) => c.diverged)).toEqual([]);
      expect(view.calls.some((c) => c.compacted)).toBe(true);
    });

    it('opens a compaction call on what it changed, with the summary, the system prompt and the tool schemas in full', async () => {
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(`${s.base}/ui#/sessions/cc-1`);
      await page.waitForSelector('#session-h');
      // The newest call that compacted, from the timeline.
      await page.locator('table[aria-label=Calls] tr.changed a').first().click();
      await page.waitForSelector('#call-h');
      // The first screen shows what it changed: the summary it inserted, readable in full.
      const changed = await page.locator('#changed-h').boundingBox();
      expect(changed!.y).toBeLessThan(800);
      const inserted = page.locator('table[aria-label="What this call changed"] tr.made', {
        hasText: 'inserted by compaction',
      });
      expect((await inserted.boundingBox())!.y).toBeLessThan(800);
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.screenshot({ path: join(SHOTS, 'call-compaction-top.png') });
      await inserted.locator('details.full summary').click();
      const summary = (await inserted.locator('pre').textContent())!;
      expect(summary.startsWith('[Previous conversation summary]')).toBe(true);
      expect(summary).toContain('## Goal');
      // The prompt's parts are rows with their whole text: the system prompt and each tool schema.
      const system = page.locator('#call-list tr[data-kind=system]');
      expect(await system.locator('pre').textContent()).toBe(REPLAY_SYSTEM);
      const tools = toolSchemas(wireMessages(TRAJECTORY)) as Array<{ function: { name: string } }>;
      expect(await page.locator('#call-list tr[data-kind=tools]').count()).toBe(tools.length);
      const read = page.locator('#call-list tr[data-kind=tools]', { hasText: 'tool schema: Read' });
      expect(JSON.parse((await read.locator('pre').textContent())!).function.name).toBe('Read');
      // And what it sends beside the previous call, and why its level came out so.
      expect(await page.textContent('#since-h')).toContain('Since the previous call');
      expect(await page.textContent('#view .summary .reason')).toMatch(/compaction applied/);
      expect(await overflowing(page)).toEqual([]);
      await page.screenshot({ path: join(SHOTS, 'call-compaction.png'), fullPage: true });
    });

    it('fits a phone’s width on every view: no element past the edge, no table clipped', async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      const views = [
        '#/sessions',
        '#/sessions/ui-1',
        '#/sessions/cc-1',
        '#/memories',
        `#/sessions/ui-1/calls/${callLink.split('/').at(-1)}`,
      ];
      for (const v of views) {
        await page.goto(`${s.base}/ui${v}`);
        await viewLoaded(page, v);
        expect(await overflowing(page), v).toEqual([]);
      }
      // The compaction call, with its summary and a tool schema opened.
      await page.goto(`${s.base}/ui#/sessions/cc-1`);
      await page.waitForSelector('#session-h');
      await page.locator('table[aria-label=Calls] tr.changed a').first().click();
      await page.waitForSelector('#call-h');
      await page
        .locator('table[aria-label="What this call changed"] tr.made details.full summary')
        .first()
        .click();
      await page.locator('#call-list tr[data-kind=tools] details.full summary').first().click();
      expect(await overflowing(page)).toEqual([]);
      const card = page.locator('table[aria-label="What this call changed"] tr').first();
      expect((await card.boundingBox())!.width).toBeLessThanOrEqual(390);
      await page.screenshot({ path: join(SHOTS, 'call-compaction-phone.png') });
      // The sessions list keeps the id, what one taps to open a session.
      await page.goto(`${s.base}/ui#/sessions`);
      await page.waitForSelector('#sessions-h');
      const id = page.locator('table[aria-label=Sessions] td.id a', { hasText: 'ui-1' });
      expect(await id.isVisible()).toBe(true);
      await id.click();
      await page.waitForSelector('#session-h');
      expect(page.url()).toContain('#/sessions/ui-1');
    });

    it('has the same in ctxcheck inspect --html: the changes first, the summary, system prompt and tool schemas, at both widths', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ctxkit-inspect-'));
      // The trajectory as it is (its compaction boundary marked), with the replay's system prompt and tools.
      const messages = wireMessages(TRAJECTORY);
      const raw = JSON.parse(readFileSync(TRAJECTORY, 'utf8')) as { messages: unknown[] };
      const file = join(dir, 'session.json');
      writeFileSync(
        file,
        JSON.stringify({
          messages: [{ role: 'system', content: REPLAY_SYSTEM }, ...raw.messages],
          tools: toolSchemas(messages),
        }),
      );
      const io = bufferIo({ cwd: dir, env: {} });
      expect(
        await createCli(['inspect', 'session.json', '--window', '20000', '--html', 'view.html'], io).run(),
      ).toBe(0);
      for (const [width, height] of [
        [1280, 800],
        [390, 844],
      ] as const) {
        await page.setViewportSize({ width, height });
        await page.goto(`file://${join(dir, 'view.html')}`);
        expect((await page.locator('#changed-h').boundingBox())!.y).toBeLessThan(height);
        await page.screenshot({ path: join(SHOTS, `inspect-top-${width}.png`) });
        // Counted from Claude Code's own compaction, as its recorded usage is.
        expect(await page.textContent('#earlier')).toMatch(/^Before the compaction boundary \(229 messages/);
        const inserted = page.locator('table[aria-label="What this call changed"] tr.made').first();
        await inserted.locator('details.full summary').click();
        expect(
          (await inserted.locator('pre').textContent())!.startsWith('[Previous conversation summary]'),
        ).toBe(true);
        expect(await page.locator('#before-list tr[data-kind=system] pre').textContent()).toBe(REPLAY_SYSTEM);
        expect(await page.locator('#before-list tr[data-kind=tools]').count()).toBe(
          toolSchemas(messages).length,
        );
        await page.locator('#before-list tr[data-kind=tools] details.full summary').first().click();
        expect(await overflowing(page), `inspect --html at ${width}`).toEqual([]);
        await page.screenshot({ path: join(SHOTS, `inspect-${width}.png`) });
      }
      rmSync(dir, { recursive: true, force: true });
    });
  },
);
