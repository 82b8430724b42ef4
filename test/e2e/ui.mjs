// Driving the code-server workbench as a person would: clicks, keys and what the page shows.
// Every wait is on a page condition (a row, a title, a panel), never a fixed sleep.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Selectors of the parts of the workbench the scenarios read. */
export const parts = {
  workbench: '.monaco-workbench',
  activityBar: '.part.activitybar',
  sidebar: '.part.sidebar',
  panel: '.part.panel',
  quickInput: '.quick-input-widget',
  notifications: '.notifications-toasts, .notifications-center',
};

/**
 * Opens the workbench and waits until it is usable: the activity bar is drawn and the
 * extensions have been scanned (the Explorer entry appears with the rest of the bar).
 */
export async function openWorkbench(page, url, timeout = 60_000) {
  await page.goto(url);
  await page.locator(parts.workbench).waitFor({ timeout });
  await page.locator(`${parts.activityBar} .action-item`).first().waitFor({ timeout });
}

/** The activity bar entry of a view container, by its title. */
export function activityEntry(page, title) {
  return page.locator(`${parts.activityBar} .action-item .action-label[aria-label^="${title}"]`);
}

/**
 * Clicks a view container's activity bar entry until its side bar shows, as a person would. Right
 * after a reload the workbench may still be restoring that side bar, and a click then closes it
 * again: so look, click, and look again.
 */
export async function openViewContainer(page, title, timeout = 60_000) {
  const entry = activityEntry(page, title);
  await entry.waitFor({ timeout });
  const shown = page.locator(`${parts.sidebar} .composite.title`).filter({ hasText: new RegExp(title, 'i') });
  const deadline = Date.now() + timeout;
  for (;;) {
    if (await shown.isVisible()) break;
    await entry.click();
    try {
      await shown.waitFor({ timeout: Math.min(5_000, Math.max(1, deadline - Date.now())) });
      break;
    } catch (err) {
      if (Date.now() >= deadline) throw err;
    }
  }
  // Leave no hover tooltip on the entry in later screenshots.
  await page.mouse.move(page.viewportSize().width / 2, page.viewportSize().height / 2);
}

/** A row of the side bar's trees whose label is `label` (exact match on the label element). */
export function treeRow(page, label) {
  return page
    .locator(`${parts.sidebar} .monaco-list-row`)
    .filter({ has: page.locator('.label-name, .monaco-highlighted-label', { hasText: new RegExp(`^${escapeRegExp(label)}$`) }) });
}

/**
 * Runs a command from the palette (F1) by typing its full title, as a person would. Resolves once
 * the palette has gone: closed, or replaced by the command's own quick input. With `until` (waits
 * for the command's effect, rejecting when it does not show), runs it up to three times.
 */
export async function runCommand(page, title, { timeout = 30_000, until } = {}) {
  for (let attempt = 1; ; attempt++) {
    await focusWorkbench(page);
    await page.keyboard.press('F1');
    await answerQuickInput(page, `>${title}`, { match: title, timeout });
    await page.waitForFunction(
      (sel) => {
        const input = globalThis.document.querySelector(`${sel}:not(.quick-input-widget-closing) input`);
        return !input || input.getClientRects().length === 0 || !input.value.startsWith('>');
      },
      parts.quickInput,
      { timeout },
    );
    if (!until) return;
    // Under load, a fresh workbench's first palette command has closed the palette without
    // running (seen about once in ten CI runs): look for its effect, and run it again if none.
    try {
      await until();
      return;
    } catch (err) {
      if (attempt === 3) throw err;
      console.log(`[e2e] "${title}" showed nothing in time (attempt ${attempt}): running it again`);
    }
  }
}

/**
 * Answers the open quick pick or input box: types `text` and presses Enter. With `match`, waits
 * until the focused row contains it first (else Enter could take a row of the previous filter).
 */
export async function answerQuickInput(page, text, { match, timeout = 30_000 } = {}) {
  const input = page.locator(`${parts.quickInput}:not(.quick-input-widget-closing) input`);
  await input.waitFor({ timeout });
  await input.fill(text);
  if (match) await page.locator(`${parts.quickInput} .monaco-list-row.focused`).filter({ hasText: match }).waitFor({ timeout });
  await page.keyboard.press('Enter');
}

/** A row of the open quick pick that contains `text`. */
export function quickPickRow(page, text) {
  return page.locator(`${parts.quickInput}:not(.quick-input-widget-closing) .monaco-list-row`).filter({ hasText: text });
}

/** Focuses the workbench so keyboard shortcuts reach it (a click on the status bar is neutral). */
export async function focusWorkbench(page) {
  await page.locator('.part.statusbar').click({ position: { x: 5, y: 5 } });
}

/**
 * The visible text of the parts a failure is usually about: quick input, a dialog,
 * notifications, side bar, the editors' tabs and panel. Printed when a scenario fails, next to its screenshot.
 */
export async function visibleText(page) {
  const out = [];
  const shown = { quickInput: parts.quickInput, dialog: '.monaco-dialog-box', notifications: parts.notifications, sidebar: parts.sidebar, editorTabs: '.part.editor .tabs-container', panel: parts.panel };
  for (const [name, selector] of Object.entries(shown)) {
    const texts = await page
      .locator(selector)
      .evaluateAll((els) =>
        els
          .filter((e) => e.getClientRects().length > 0)
          .map((e) => {
            // List rows print as "label  description", indented by their tree level.
            const rows = [...e.querySelectorAll('.monaco-list-row')].map((r) => {
              const level = Number(r.getAttribute('aria-level') || 1);
              const cells = [...r.querySelectorAll('.label-name, .label-description')].map((c) => c.textContent.trim()).filter(Boolean);
              return `${'  '.repeat(level - 1)}- ${cells.length ? cells.join('  ') : r.textContent.trim()}`;
            });
            const title = e.querySelector('.composite.title, .quick-input-title')?.textContent.trim();
            return rows.length ? [title, ...rows].filter(Boolean).join('\n') : e.innerText.trim();
          }),
      )
      .catch(() => []);
    const text = texts.filter(Boolean).join('\n');
    if (text) out.push(`--- ${name} ---\n${text}`);
  }
  return out.join('\n') || (await page.locator('body').innerText().catch(() => '(page not readable)')).slice(0, 4000);
}

/** The description shown next to a tree row's label (a server's state, a task's status). */
export async function rowDescription(row) {
  return (await row.locator('.label-description').first().textContent())?.trim() ?? '';
}

/** The open quick input's title element, when it contains `text`. */
export function quickInputTitle(page, text) {
  return page.locator(`${parts.quickInput}:not(.quick-input-widget-closing) .quick-input-title`).filter({ hasText: text });
}

/**
 * "MCP Tasks: Run Tool as Task..." from the palette, as a person would: types the server's name,
 * then the tool's name; when the tool takes arguments, answers their form (see fillArguments);
 * then, for a tool that runs as a task, takes the ttl step's `ttl` item (Enter: the default).
 * `ttl: false` for a tool called directly (no ttl step).
 */
export async function runToolAsTask(page, { server, tool, args, ttl = 'Default' }) {
  await runCommand(page, 'MCP Tasks: Run Tool as Task...', { until: () => quickInputTitle(page, 'Run Tool as Task (1/4)').waitFor({ timeout: 15_000 }) });
  await answerQuickInput(page, server, { match: server });
  // The server is connected first, then its tools are listed.
  await quickInputTitle(page, `Run Tool as Task (2/4): tool of ${server}`).waitFor({ timeout: 60_000 });
  await answerQuickInput(page, tool, { match: tool });
  if (args !== undefined) await fillArguments(page, tool, args);
  if (ttl === false) return;
  await quickInputTitle(page, `Run Tool as Task (4/4): how long to keep ${tool}`).waitFor({ timeout: 30_000 });
  if (ttl === 'Default') await pressEnterOn(page, 'Default');
  else await answerQuickInput(page, ttl, { match: ttl });
}

/**
 * Answers the arguments form of Run Tool as Task, one field a step (the title stays "Run Tool as
 * Task (3/4): arguments of TOOL"; each step shows its field in its prompt or placeholder): a
 * field named in `args` gets that text typed, or, in a pick, the item with that label; any other
 * field keeps what it shows (its default) with Enter. On the last step (the review, "Review the
 * arguments of TOOL") Enter runs the tool.
 */
export async function fillArguments(page, tool, args) {
  const widget = page.locator(`${parts.quickInput}:not(.quick-input-widget-closing)`);
  await quickInputTitle(page, `arguments of ${tool}`).waitFor({ timeout: 30_000 });
  let previous = '';
  for (;;) {
    // The field's prompt (an input box) or placeholder (a pick): `[message — ]field[ (optional)][: ...]`.
    // The next step is up once it differs from the step answered.
    const text = await page
      .waitForFunction(
        ({ selector, previous }) => {
          const el = [...globalThis.document.querySelectorAll(selector)].pop();
          const text = (el && (el.querySelector('.quick-input-message')?.textContent.trim() || el.querySelector('input')?.placeholder)) || '';
          return text && text !== previous ? text : false;
        },
        { selector: `${parts.quickInput}:not(.quick-input-widget-closing)`, previous },
        { timeout: 30_000 },
      )
      .then((h) => h.jsonValue());
    if (text.startsWith(`Review the arguments of ${tool}`)) return pressEnterOn(page, `Run ${tool}`);
    previous = text;
    const field = /^(.+?)(?: \(optional\))?(?::|$| \()/.exec(text.split(' — ').pop())?.[1];
    const answer = args[field];
    const isPick = await widget.locator('.quick-input-list .monaco-list-row').first().isVisible();
    if (answer === undefined) await (isPick ? pressEnterOn(page, '') : page.keyboard.press('Enter'));
    else await answerQuickInput(page, String(answer), isPick ? { match: String(answer) } : {});
  }
}

/** Presses Enter once the focused row of the open quick pick contains `text`. */
async function pressEnterOn(page, text, timeout = 30_000) {
  await page.locator(`${parts.quickInput}:not(.quick-input-widget-closing) .monaco-list-row.focused`).filter({ hasText: text }).waitFor({ timeout });
  await page.keyboard.press('Enter');
}

/**
 * A task's row in the side bar, found by its accessible name `Task <tool>, <status>, <description>`
 * (the status icon is not text; the name says it), or `Task <tool> (<when it started>), …` when the
 * tool has run more than once on its server. With `status` (e.g. `Completed`), only while the row is
 * in that status.
 */
export function taskRow(page, tool, status) {
  const row = `${parts.sidebar} .monaco-list-row`;
  const then = cssString(status ? `, ${status},` : ',');
  return page.locator(`${row}[aria-label^="${cssString(`Task ${tool}`)}${then}"], ${row}[aria-label^="${cssString(`Task ${tool} (`)}"][aria-label*="${cssString(`)`)}${then}"]`);
}

/** Clicks one of the inline actions shown on a row when the pointer is over it (e.g. "Cancel Task..."). */
export async function clickRowAction(row, title) {
  await row.hover();
  const action = row.locator(`.actions .action-label[aria-label^="${title}"]`);
  await action.waitFor({ timeout: 10_000 });
  await action.click();
}

/** The editor area's visible text lines of the active editor. */
export function activeEditorLines(page) {
  return page.locator('.part.editor .editor-group-container.active .monaco-editor .view-lines');
}

/** Drags the sash at the side bar's right edge until the side bar is `width` pixels wide. */
export async function widenSideBar(page, width) {
  const box = await page.locator(parts.sidebar).boundingBox();
  if (!box || box.width >= width) return;
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width, y);
  await page.mouse.down();
  await page.mouse.move(box.x + width, y, { steps: 5 });
  await page.mouse.up();
  await page.waitForFunction(({ sel, w }) => globalThis.document.querySelector(sel)?.getBoundingClientRect().width >= w - 2, { sel: parts.sidebar, w: width });
}

function cssString(s) {
  return s.replace(/["\\]/g, '\\$&');
}

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Opens the MCP Tasks view and runs demo's quick-echo with `message` to its end: a task in the view and in the store. */
export async function withOneTask(page, url, message) {
  await openWorkbench(page, url);
  await openViewContainer(page, 'MCP Tasks');
  await widenSideBar(page, 520);
  await runToolAsTask(page, { server: 'demo', tool: 'quick-echo', args: { message } });
  await taskRow(page, 'quick-echo', 'Completed').waitFor({ timeout: 30_000 });
}

/**
 * The user data of scenario `name` in this run (the newest run under .vscode-test/runs: one editor
 * at a time; its newest `<name>-<n>` folder) and the task list MCP Tasks saved there, once it is
 * saved (half a second after a change).
 */
export async function storedTasks(page, workspace, name) {
  const newest = (dir, ok = () => true) => readdirSync(dir).map((d) => join(dir, d)).filter(ok).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  const run = newest(join(workspace, '..', '..', '..', '..', '.vscode-test', 'runs'));
  const userData = join(newest(run, (d) => basename(d).startsWith(`${name}-`) && existsSync(join(d, 'user-data'))), 'user-data');
  for (const deadline = Date.now() + 10_000; ; await page.waitForTimeout(200)) {
    const index = filesUnder(join(userData, 'User', 'workspaceStorage'), /mcp-tasks\.mcp-tasks[/\\]tasks\.json$/)[0];
    if (index) return { userData, index, dir: dirname(index) };
    if (Date.now() > deadline) throw new Error(`no tasks.json under ${userData}`);
  }
}

/** Files under `dir` whose path matches `re`. */
export function filesUnder(dir, re) {
  return readdirSync(dir, { recursive: true }).map((f) => join(dir, String(f))).filter((f) => re.test(f));
}
