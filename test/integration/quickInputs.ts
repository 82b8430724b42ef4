// Answering the extension's quick inputs from inside the extension host. Code here cannot type
// into the page: a spy on `vscode.window` says which quick input is up and what it lists, picks
// are answered with the workbench's quick-open commands (select next, accept), and text is put
// into input boxes as a person typing there would (the box's value, then accept).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { waitFor } from './helpers';

/** What a quick input showed: its kind, title, placeholder or prompt, value and items. */
export interface Shown {
  kind: 'pick' | 'input';
  title?: string;
  text?: string;
  /** An input box's value when it showed. */
  value?: string;
  /** Each item as shown; `icon` is its iconPath's codicon (a `$(icon)` in a text is read out by name). */
  items: Array<{ label: string; icon?: string; description?: string; detail?: string }>;
  /**
   * Whether it showed busy and enabled, read when it showed: the live `pick.busy` and `box.busy`
   * change as soon as the work behind them ends, which may be before a test gets to read them.
   */
  busy?: boolean;
  enabled?: boolean;
  /** The quick pick or input box itself, when the extension built one (createQuickPick/createInputBox). */
  pick?: vscode.QuickPick<vscode.QuickPickItem>;
  box?: vscode.InputBox;
}

/** Records every quick input and message the extension shows, and types into input boxes on request. */
export class QuickInputSpy implements vscode.Disposable {
  readonly shown: Shown[] = [];
  readonly messages: string[] = [];
  /** The buttons of each message, in the order of `messages`. */
  readonly messageItems: string[][] = [];
  private consumed = 0;
  private readonly typed: string[] = [];
  private readonly restore: Array<() => void> = [];

  constructor() {
    const w = vscode.window as unknown as Record<string, (...args: unknown[]) => unknown>;
    const wrap = (name: string, around: (orig: (...args: unknown[]) => unknown) => (...args: unknown[]) => unknown) => {
      const orig = w[name];
      w[name] = around(orig);
      this.restore.push(() => (w[name] = orig));
    };
    const labels = (items: readonly vscode.QuickPickItem[]) =>
      items.map((i) => ({ label: i.label, icon: i.iconPath instanceof vscode.ThemeIcon ? i.iconPath.id : undefined, description: i.description, detail: i.detail }));
    wrap('showQuickPick', (orig) => (items, options, token) => {
      const o = options as vscode.QuickPickOptions | undefined;
      void Promise.resolve(items as Thenable<vscode.QuickPickItem[]>).then((list) => this.shown.push({ kind: 'pick', title: o?.title, text: o?.placeHolder, items: labels(list) }));
      return orig.call(vscode.window, items, options, token);
    });
    wrap('showInputBox', (orig) => (options, token) => {
      const o = { ...(options as vscode.InputBoxOptions | undefined) };
      const text = this.typed.shift();
      this.shown.push({ kind: 'input', title: o.title, text: o.prompt, value: o.value, items: [] });
      if (text !== undefined) o.value = text;
      return orig.call(vscode.window, o, token);
    });
    wrap('createQuickPick', (orig) => () => {
      const qp = orig.call(vscode.window) as vscode.QuickPick<vscode.QuickPickItem>;
      recordButtonListeners(qp);
      const show = qp.show.bind(qp);
      qp.show = () => (this.shown.push({ kind: 'pick', title: qp.title, text: qp.placeholder, items: labels(qp.items), busy: qp.busy, enabled: qp.enabled, pick: qp }), show());
      return qp;
    });
    wrap('createInputBox', (orig) => () => {
      const box = orig.call(vscode.window) as vscode.InputBox;
      recordButtonListeners(box);
      const show = box.show.bind(box);
      box.show = () => (this.shown.push({ kind: 'input', title: box.title, text: box.prompt, value: box.value, items: [], busy: box.busy, enabled: box.enabled, box }), show());
      return box;
    });
    for (const name of ['showInformationMessage', 'showWarningMessage', 'showErrorMessage']) {
      wrap(name, (orig) => (...args) => (this.messages.push(String(args[0])), this.messageItems.push(args.slice(1).filter((a): a is string => typeof a === 'string')), orig.apply(vscode.window, args)));
    }
  }

  /** The next `showInputBox` shows `text` as its value, as if typed. */
  type(text: string): void {
    this.typed.push(text);
  }

  /** Waits for the next quick input not seen yet. */
  async next(what: string, timeoutMs = 15_000): Promise<Shown> {
    const recent = () => this.shown.slice(-3).map((s) => `${s.kind} "${s.title}": ${s.text}`).join(' | ');
    const shown = await waitFor(() => this.shown[this.consumed], `${what} (last shown: ${recent() || 'none'})`, timeoutMs);
    this.consumed++;
    return shown;
  }

  /** Skips every quick input shown so far. */
  skipShown(): void {
    this.consumed = this.shown.length;
  }

  dispose(): void {
    for (const r of this.restore.reverse()) r();
  }
}

/**
 * Runs `body` with the extension's warnings answered `modal.answer` (undefined, Cancel, until
 * `body` sets it): a modal dialog cannot be clicked from the host. Returns each warning shown, as
 * `message | detail | buttons`.
 */
export async function answeringWarnings(body: (modal: { answer?: string }) => Thenable<unknown>): Promise<string[]> {
  const w = vscode.window as unknown as Record<string, unknown>;
  const showWarning = w.showWarningMessage;
  const asked: string[] = [];
  const modal: { answer?: string } = {};
  w.showWarningMessage = (message: string, options: vscode.MessageOptions, ...items: string[]) => (asked.push([message, options.detail, ...items].join(' | ')), Promise.resolve(modal.answer));
  try {
    await body(modal);
  } finally {
    w.showWarningMessage = showWarning;
  }
  return asked;
}

/**
 * Records the toasts the extension shows through `show` (their message and buttons) instead of
 * showing them: toasts are not shown while tests run, so the test picks each one's button
 * (`choices[i]`). `dispose` puts `show` back and dismisses what is left.
 */
export function recordToasts(show: 'showInformationMessage' | 'showWarningMessage'): vscode.Disposable & { told: Array<[string, string[]]>; choices: Array<(c: string | undefined) => void> } {
  const w = vscode.window as unknown as Record<string, unknown>;
  const original = w[show];
  const told: Array<[string, string[]]> = [];
  const choices: Array<(c: string | undefined) => void> = [];
  w[show] = (message: string, ...items: string[]) => (told.push([message, items]), new Promise((r) => choices.push(r)));
  return {
    told,
    choices,
    dispose: () => {
      w[show] = original;
      choices.forEach((c) => c(undefined));
    },
  };
}

const buttonListeners = new WeakMap<vscode.QuickInput, Array<(b: vscode.QuickInputButton) => unknown>>();

/**
 * Keeps the listeners of a quick input's buttons, so a test can press a button (the workbench has
 * no command for the buttons of a title bar, other than Back).
 */
function recordButtonListeners(input: vscode.QuickPick<vscode.QuickPickItem> | vscode.InputBox): void {
  const listeners: Array<(b: vscode.QuickInputButton) => unknown> = [];
  buttonListeners.set(input, listeners);
  const event = input.onDidTriggerButton;
  const recorded: vscode.Event<vscode.QuickInputButton> = (listener, thisArg, disposables) => {
    const bound = (b: vscode.QuickInputButton) => listener.call(thisArg, b);
    listeners.push(bound);
    const sub = event(listener, thisArg, disposables);
    return {
      dispose: () => {
        const i = listeners.indexOf(bound);
        if (i >= 0) listeners.splice(i, 1);
        sub.dispose();
      },
    };
  };
  Object.defineProperty(input, 'onDidTriggerButton', { value: recorded, configurable: true });
}

/** Presses the title-bar button of `shown` whose tooltip starts with `tooltip`, as a click would. */
export function press(shown: Shown, tooltip: string): void {
  const input = shown.pick ?? shown.box;
  assert.ok(input, `${shown.title}: not a quick input of ours`);
  const button = input.buttons.find((b) => b.tooltip?.startsWith(tooltip));
  assert.ok(button, `no button "${tooltip}" among ${JSON.stringify(input.buttons.map((b) => b.tooltip))}`);
  const listeners = buttonListeners.get(input) ?? [];
  assert.ok(listeners.length > 0, 'nobody listens to its buttons');
  for (const l of [...listeners]) l(button);
}

export const accept = () => vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
/** The Back button of the open quick input, through the workbench's own command for it. */
export const back = () => vscode.commands.executeCommand('workbench.action.quickInputBack');
/** Whether a quick input of ours shows the Back button. */
export const hasBack = (shown: Shown) => (shown.pick ?? shown.box)?.buttons.includes(vscode.QuickInputButtons.Back) ?? false;
/** Escape: closes whatever quick input is open. */
export const escape = () => vscode.commands.executeCommand('workbench.action.closeQuickOpen');

/** Moves the focus of the open quick pick to the item that `match` finds, and accepts it. */
export async function choose(shown: Shown, match: (item: Shown['items'][number]) => boolean, what: string): Promise<void> {
  const index = shown.items.findIndex(match);
  assert.ok(index >= 0, `${what} is not among ${JSON.stringify(shown.items.map((i) => i.label))}`);
  const qp = shown.pick;
  if (qp && qp.activeItems[0] !== qp.items[index]) {
    // A pick of ours may focus a default first: move the focus to the item. The change reaches
    // the workbench after a round trip (seconds on a busy machine), so accept only once it reports
    // the item active; a pick hidden meanwhile never will, and says so at once.
    const target = qp.items[index];
    let focused = false;
    let hidden = false;
    const listeners = [qp.onDidChangeActive((items) => (focused ||= items[0] === target)), qp.onDidHide(() => (hidden = true))];
    qp.activeItems = [target];
    await waitFor(() => focused || hidden, `${what} to be focused`, 15_000).finally(() => listeners.forEach((l) => l.dispose()));
    assert.ok(!hidden || focused, `"${shown.title}" was hidden before ${what} could be chosen`);
  } else if (!qp) {
    for (let i = 0; i < index; i++) await vscode.commands.executeCommand('workbench.action.quickOpenSelectNext');
  }
  await accept();
}

/** Replaces the text of the open input box, as typing would, and presses Enter. */
export async function enter(shown: Shown, text: string): Promise<void> {
  assert.ok(shown.box, `${shown.title}: not an input box of ours`);
  shown.box.value = text;
  await accept();
}

/** What to answer per field of a tool's arguments form: text for input boxes, an item's label for picks. */
export type Answers = Record<string, string>;

/**
 * The field a form step asks for: its prompt or placeholder is `[message — ]field[ (optional)][: description]`.
 * A pick's text too long for its placeholder is its prompt, the placeholder then saying what to do ("Pick one").
 */
export function fieldOf(shown: Shown): string {
  const prompt = (shown.pick as { prompt?: string } | undefined)?.prompt;
  const text = prompt && /^Pick (one|any)\b/.test(shown.text ?? '') ? prompt : shown.text;
  const head = (text ?? '').split(' — ').pop() ?? '';
  return /^(.+?)(?: \(optional\))?(?::|$| \()/.exec(head)?.[1] ?? head;
}

/**
 * Answers the arguments form of Run Tool as Task: each field listed in `answers` gets its text
 * or choice, the others keep what they show (their default), then the review step's `review`
 * item (by default the one that runs the tool) is chosen. `at`: the step counter in the title, as
 * the user counts the steps shown: started from a server's row, a task's arguments are 2/3 (the
 * ttl is 3/3) and a direct call's 2/2; from the palette, with the server step, 3/4 and 3/3.
 * Returns the fields asked, in order.
 */
export async function fillArguments(spy: QuickInputSpy, toolName: string, answers: Answers, review = `Run ${toolName}`, at = '2/3'): Promise<string[]> {
  const asked: string[] = [];
  for (;;) {
    const s = await spy.next(`a step of the arguments of ${toolName} (after ${asked.join(', ') || 'none'})`);
    assert.equal(s.title, `Run Tool as Task (${at}): arguments of ${toolName}`);
    // One step counter: the title's. The quick input's own (1/3 of the form) would contradict it.
    const q = s.pick ?? s.box;
    assert.deepEqual([q?.step, q?.totalSteps], [undefined, undefined], `a step of the form shows no counter of its own besides "${s.title}"`);
    if (s.items.some((i) => i.label.endsWith(`Run ${toolName}`))) {
      await choose(s, (i) => i.label.endsWith(review), review);
      return asked;
    }
    const field = fieldOf(s);
    asked.push(field);
    const answer = answers[field];
    if (answer === undefined) await accept();
    else if (s.kind === 'input') await enter(s, answer);
    else await choose(s, (i) => i.label === answer, `${answer} for ${field}`);
  }
}

/** Answers the ttl step: the item whose label ends with `choice` ("Default" keeps the default); `at` as for fillArguments (4/4 from the palette). */
export async function chooseTtl(spy: QuickInputSpy, toolName: string, choice = 'Default', at = '3/3'): Promise<Shown> {
  const s = await spy.next('the ttl pick');
  assert.equal(s.title, `Run Tool as Task (${at}): how long to keep ${toolName}`);
  assert.ok(s.items[0]?.label.endsWith('Default'), `the default comes first: ${JSON.stringify(s.items.map((i) => i.label))}`);
  if (choice === 'Default') await accept();
  else await choose(s, (i) => i.label.endsWith(choice), choice);
  return s;
}
