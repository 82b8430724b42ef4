import * as vscode from 'vscode';
import type { Answer, FormPrompter, InputOptions, Nav, PickItem, PickOptions, PromptOptions } from '../../core/elicitation/handler';
import { abortReason, abortWith, newController, onAbort, raceAbort } from '../../core/util/abort';
import type { Turn } from '../../core/util/turns';
import type { HiddenDialogs } from '../hiddenDialogs';
import { showAgain } from '../hiddenDialogs';
import { inputPrompts } from '../inputs';
import { noop } from '../../core/util/promise';
import { isString } from '../../core/util/json';
import { inert, oneLine } from '../../core/util/text';
import { CANCEL, DECLINE } from '../../core/elicitation/flow';
import { CIRCLE_SLASH } from '../../core/tasks/presentation';
import { registerCommand, setContext } from '../editorCommands';

type Item<T> = vscode.QuickPickItem & { value: T };
/**
 * `vscode.env.openExternal` as the extension host implements it: it also takes a string, which
 * reaches the opener unchanged. A `vscode.Uri` would not do: `Uri.parse` decodes `%26`, `%3D`,
 * `%2F`, `%2B`... and the page opened would differ from the URL the user consented to
 * (microsoft/vscode#85930; strings are the maintainers' answer, #115554).
 */
type ExactOpener = { openExternal(target: vscode.Uri | string): Thenable<boolean> };
type Wire<T> = (resolve: (a: Answer<T>) => void, listeners: vscode.Disposable[]) => void;
type Keys = (nav: Nav | typeof FOCUS) => unknown;
const FOCUS = 'focus';
/**
 * A key of a question form as the editor writes it (package.json binds ctrl+alt+d and ctrl+alt+w):
 * Control and Option on macOS. By the extension host's platform: a remote window opened from a Mac
 * still says Ctrl+Alt (no API names the UI's).
 */
const questionKey = (key: string): string => (process.platform === 'darwin' ? '⌃⌥' : 'Ctrl+Alt+') + key;

/**
 * The step of a server's question on screen, which the keys of its Decline and Cancel buttons
 * answer (package.json's keybindings; Tab never reaches title-bar buttons). The context key
 * `mcpTasks.questionOpen` says there is one, so the keys do nothing elsewhere.
 */
let onScreen: Keys | undefined;
const setOnScreen = (keys?: Keys): void => {
  onScreen = keys;
  void setContext('mcpTasks.questionOpen', !!keys);
};

/**
 * Gives the question on screen the keyboard back (a click on its task's row took it): shown
 * again. VS Code focuses a quick input only as it shows (show() on one shown does nothing, nor
 * does workbench.action.focusQuickOpen from an extension). False when none is on screen.
 */
export const focusQuestion = (): boolean => !!onScreen?.(FOCUS);

/** The commands of those keys: Decline and Cancel of the question step on screen, as its buttons. */
export const registerQuestionKeys = (): vscode.Disposable[] => ([DECLINE, CANCEL] as const).map((nav) => registerCommand(`mcpTasks.${nav}Question`, () => onScreen?.(nav)));

/**
 * The elicitation dialog in the editor: one quick pick or input box per step, shaped like
 * vscode-extension-samples' multiStepInput (step counter, Back button, the previous step's
 * input disposed when the next shows, each step's listeners disposed in `finally`). Focus
 * moving away keeps it open.
 *
 * Hiding it (Escape, or another quick input shown over it) depends on who asks. For our own
 * commands it answers cancel. For a server's question (given `hidden`) it answers nothing: the
 * question waits in `hidden` until reopened, and only its Decline or Cancel (a button on each
 * step, with its key while the step is on screen; items on the review step) answer the server.
 * Hidden, it gives up `turn`, the turn of the one question this prompter asks, whichever step it
 * is on.
 */
export class QuickInputPrompter implements FormPrompter {
  #current?: vscode.QuickInput;
  readonly #hidden: HiddenDialogs | undefined;
  readonly #turn: Turn | undefined;
  readonly #declineButton: vscode.QuickInputButton = {
    iconPath: new vscode.ThemeIcon(CIRCLE_SLASH),
    tooltip: vscode.l10n.t('Decline: tell the server no ({0})', questionKey('D')),
  };
  readonly #cancelButton: vscode.QuickInputButton = {
    iconPath: new vscode.ThemeIcon('close'),
    tooltip: vscode.l10n.t('Cancel: dismiss without answering ({0})', questionKey('W')),
  };

  constructor(options: { hidden?: HiddenDialogs; turn?: Turn } = {}) {
    this.#hidden = options.hidden;
    this.#turn = options.turn;
  }

  pick<T>(items: readonly PickItem<T>[], o: PickOptions<T>): Promise<Answer<T[]>> {
    const qp = vscode.window.createQuickPick<Item<T>>();
    // The placeholder is one line, cut at the dialog's width: a server's question, a field's
    // description or a URL's domain was lost. Editors with a quick pick `prompt` (newer than the
    // 1.101 API) show it whole under the input; older ones have none, and read o.prompt after the placeholder.
    // A placeholder shows as sent (no icon, no link), on one line: a bidi override would turn it around.
    // One too long for it is shown whole there, and not cut above it too: the placeholder says what to do.
    const long = !o.prompt && o.placeholder.length > 60;
    const whole = long && 'prompt' in qp;
    const placeholder = oneLine(whole ? (o.canSelectMany ? 'Pick any, then press Enter' : 'Pick one') : o.prompt && !('prompt' in qp) ? `${o.placeholder} — ${o.prompt}` : o.placeholder);
    qp.placeholder = placeholder;
    const prompt = this.#escape(long ? o.placeholder : o.prompt);
    if (prompt) (qp as { prompt?: string }).prompt = prompt;
    qp.canSelectMany = o.canSelectMany ?? false;
    qp.matchOnDescription = true;
    qp.matchOnDetail = true;
    // The icon as iconPath, not `$(icon)` in the label: VS Code reads that as the icon's name.
    qp.items = items.map((i) => ({ label: inert(i.label), iconPath: i.icon ? new vscode.ThemeIcon(i.icon) : undefined, description: inert(i.description), detail: inert(i.detail), value: i.value }));
    const picked = qp.items.filter((_, n) => items[n].picked);
    if (qp.canSelectMany) qp.selectedItems = picked;
    else if (picked.length || o.unfocused) qp.activeItems = picked.slice(0, 1);
    return this.#show<T[]>(qp, o, (resolve, listeners) => {
      if (!qp.canSelectMany) {
        listeners.push(
          qp.onDidChangeSelection((sel) => sel[0] && resolve({ value: [sel[0].value] })),
          // Enter with no item focused (a required choice without a default focuses none, so Enter
          // answers nothing for the user) took nothing: the placeholder says what it wants.
          qp.onDidAccept(() => qp.activeItems.length || (qp.placeholder = `⚠ ${whole ? placeholder : `Pick one: ${placeholder}`}`)),
        );
        return;
      }
      listeners.push(
        qp.onDidChangeSelection(() => (qp.placeholder = placeholder)),
        qp.onDidAccept(() => {
          const values = qp.selectedItems.map((i) => i.value);
          const problem = o.validate?.(values);
          // Quick picks have no validation message in this API: the placeholder says it.
          if (problem) qp.placeholder = `⚠ ${problem}`;
          else resolve({ value: values });
        }),
      );
    });
  }

  input(o: InputOptions): Promise<Answer<string>> {
    const box = vscode.window.createInputBox();
    box.prompt = this.#escape(o.prompt);
    box.placeholder = oneLine(o.placeholder);
    box.value = o.value;
    // Shows what validate says (a note as information, not as an error); true when it is an error.
    const check = (): boolean => {
      const m = o.validate(box.value);
      box.validationMessage = isString(m) ? inert(m) : m && { message: inert(m.note), severity: vscode.InputBoxValidationSeverity.Info };
      return isString(m);
    };
    return this.#show<string>(box, o, (resolve, listeners) => listeners.push(box.onDidChangeValue(check), box.onDidAccept(() => check() || resolve({ value: box.value }))));
  }

  async openExternal(url: string): Promise<boolean> {
    try {
      return await (vscode.env as ExactOpener).openExternal(url);
    } catch {
      return false;
    }
  }

  /**
   * While work runs between two steps: the input shown stays up, busy and disabled. Hiding it
   * (Escape, another quick input) stops waiting: `signal` aborts and the answer is undefined,
   * whatever the work does after. The prompt for an input of a server's configuration (the work
   * connects it) is part of the work: it shows again once that is answered; Escape there ends
   * the work itself.
   */
  async whileBusy<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T | undefined> {
    const input = this.#current;
    const stop = newController();
    let done = false;
    // Once every input asked is answered, the step shows again (if the work goes on).
    const answered = (prompts: Promise<string | undefined>[]): unknown =>
      prompts.length ? Promise.all(prompts).then((values) => done || values.includes(undefined) || answered(inputPrompts()), noop) : input?.show();
    const hidden = input?.onDidHide(() => (inputPrompts().length ? answered(inputPrompts()) : abortWith(stop, 'cancelled')));
    if (input) [input.busy, input.enabled] = [true, false];
    try {
      return await raceAbort(work(stop.signal), stop.signal);
    } catch (err) {
      if (stop.signal.aborted) return undefined;
      throw err;
    } finally {
      done = true;
      hidden?.dispose();
      if (input && this.#current === input) [input.busy, input.enabled] = [false, true];
    }
  }

  close(): void {
    this.#current?.dispose();
    this.#current = undefined;
  }

  retitle(title: string): void {
    if (this.#current) this.#current.title = inert(title);
  }

  /**
   * A server's question: the prompt (under the input, read after it) says what Escape does, on
   * every step. VS Code follows an input box's prompt with "(Press 'Enter' to confirm or 'Escape'
   * to cancel)", and a pick step hides on Escape too; neither cancels the question.
   */
  #escape(prompt?: string): string | undefined {
    return inert([prompt, this.#hidden && vscode.l10n.t('Escape only hides it: the server waits, and "MCP question" in the status bar shows it again.')].filter(Boolean).join(' · ') || undefined);
  }

  #show<T>(input: vscode.QuickPick<Item<unknown>> | vscode.InputBox, o: PromptOptions, wire: Wire<T>): Promise<Answer<T>> {
    const listeners: vscode.Disposable[] = [];
    return new Promise<Answer<T>>((resolve, reject) => {
      if (o.signal.aborted) {
        input.dispose();
        return reject(abortReason(o.signal));
      }
      input.title = inert(o.title);
      input.step = o.step;
      input.totalSteps = o.totalSteps;
      input.ignoreFocusOut = true;
      const hidden = this.#hidden;
      input.buttons = [
        ...(o.canGoBack ? [vscode.QuickInputButtons.Back] : []),
        ...(o.canDecline ? [this.#declineButton] : []),
        ...(hidden ? [this.#cancelButton] : []),
      ];
      const withdrawn = onAbort(o.signal, () => {
        reject(abortReason(o.signal));
        // Withdrawn: closed here, and that close is no hide of the user's (listeners gone first).
        listeners.forEach((l) => l.dispose());
        this.close();
      });
      const nav = (b: vscode.QuickInputButton): Nav => (b === vscode.QuickInputButtons.Back ? 'back' : b === this.#cancelButton ? CANCEL : DECLINE);
      // A server's question: the keys answer as the buttons shown would, while it is on screen.
      // Focused: hidden and shown again (a hide that is no user's), the cursor after what was typed.
      let refocus = false;
      const focus = () => {
        refocus = true;
        input.hide();
        if ('valueSelection' in input) input.valueSelection = [input.value.length, input.value.length];
        showAgain(input);
        return true;
      };
      const keys = hidden && ((n: Nav | typeof FOCUS) => (n === FOCUS ? focus() : input.buttons.some((b) => nav(b) === n) && resolve({ nav: n })));
      const off = () => onScreen === keys && setOnScreen();
      listeners.push(
        { dispose: withdrawn },
        input.onDidTriggerButton((b) => resolve({ nav: nav(b) })),
        // The step after this one disposes it (its listeners are gone by then), so a hide here
        // is the user's or another quick input's, never ours.
        input.onDidHide(() => (refocus ? (refocus = false) : hidden ? (off(), hidden.add(input, this.#turn, () => setOnScreen(keys))) : resolve({ nav: CANCEL }))),
        { dispose: () => (off(), hidden?.delete(input)) },
      );
      wire(resolve, listeners);
      this.#current?.dispose();
      this.#current = input;
      input.show();
      if (keys) setOnScreen(keys);
    }).finally(() => listeners.forEach((l) => l.dispose()));
  }
}
