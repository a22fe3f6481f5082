/** Checks of a page in the browser: names for every control and table, keyboard reach, and overflow. */
import type { Page } from 'playwright-core';

/** Links, buttons and fields of the view with no accessible name (text, aria-label or a label). */
export function unnamed(page: Page): Promise<string[]> {
  return page.$$eval(
    '#view a[href], #view button, #view input, #view select, header a, header button',
    (els) =>
      els
        .filter((e) => {
          const el = e as HTMLElement & { labels?: NodeListOf<HTMLLabelElement> | null };
          if (el.closest('[hidden]')) return false;
          const name = el.getAttribute('aria-label') ?? el.textContent ?? '';
          return name.trim() === '' && !(el.labels && el.labels.length > 0);
        })
        .map((e) => e.outerHTML.slice(0, 120)),
  );
}

/** Presses Tab until the focused element matches `selector` (at most `max` times); whether it did. */
export async function tabTo(page: Page, selector: string, max = 400): Promise<boolean> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return true;
  }
  return false;
}

/** Tables of the view with no name. */
export function unnamedTables(page: Page): Promise<number> {
  return page.$$eval('#view table', (ts) => ts.filter((t) => !t.getAttribute('aria-label')).length);
}

/**
 * What does not fit the viewport's width: every laid-out element whose box reaches past either edge
 * (the skip link, off-screen until focused, and what a one-pixel box hides on purpose, aside), every table, wrapper or text block whose content is
 * wider than its box (clipped or scrolled), and the page itself when it scrolls sideways.
 */
export function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const name = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ').join('.')}` : ''} ${(el.textContent ?? '').trim().slice(0, 40)}`;
    // Inside a box of one pixel: visually hidden on purpose (a stacked table's header, for screen readers).
    const hidden = (el: Element) => {
      for (let a: Element | null = el; a; a = a.parentElement) {
        const r = a.getBoundingClientRect();
        if (r.width <= 1 && r.height <= 1 && getComputedStyle(a).position === 'absolute') return true;
      }
      return false;
    };
    const out: string[] = [];
    if (document.documentElement.scrollWidth > vw + 1)
      out.push(`the page: ${document.documentElement.scrollWidth} > ${vw}`);
    for (const el of document.querySelectorAll('body *')) {
      if (el.closest('.skip') || hidden(el)) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if (r.right > vw + 1 || r.left < -1)
        out.push(`past the edge (${Math.round(r.left)}–${Math.round(r.right)} of ${vw}): ${name(el)}`);
    }
    for (const el of document.querySelectorAll('table, .scroll, pre, td, th')) {
      const h = el as HTMLElement;
      if (h.offsetParent === null || hidden(el)) continue;
      if (h.scrollWidth > h.clientWidth + 1)
        out.push(`clipped (${h.scrollWidth} in ${h.clientWidth}): ${name(el)}`);
    }
    return out.slice(0, 20);
  });
}

/**
 * Waits until the view of `route` (`#/sessions/s1`, `#/sessions/s1/calls/c`, `#/memories`…) has loaded:
 * its heading is there, names what the route names, and no fragment is being fetched.
 */
export async function viewLoaded(page: Page, route: string): Promise<void> {
  const parts = route.replace(/^#\//, '').split('?')[0]!.split('/');
  const heading =
    parts[0] === 'memories'
      ? '#memories-h'
      : parts[2] === 'calls'
        ? '#call-h'
        : parts[1]
          ? '#session-h'
          : '#sessions-h';
  const names = parts[2] === 'calls' ? parts[3] : parts[1];
  await page.waitForFunction(
    ([h, n]) => {
      const el = document.querySelector(h!);
      return (
        !!el &&
        !document.getElementById('view')?.hasAttribute('aria-busy') &&
        (!n || (el.textContent ?? '').includes(n))
      );
    },
    [heading, names ?? ''],
  );
}
