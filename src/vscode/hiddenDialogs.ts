import * as vscode from 'vscode';
import { DisposableBase } from '../core/util/event';
import type { Event } from '../core/util/event';
import type { Turn, Turns } from '../core/util/turns';
import { RESPOND_TO_TASK } from './editorCommands';
import { noop } from '../core/util/promise';
import { formatCount } from '../core/util/text';

/** Where a server's dialog about a task is (see `HiddenDialogs.whereIs`). */
export type DialogPlace = 'shown' | 'waiting' | 'deferred' | 'hidden' | undefined;

/**
 * The dialogs servers open (questions, sampling consent) that were hidden without an answer:
 * Escape, or another quick input (the Command Palette, Quick Open, our own commands) shown over
 * them. The editor cannot tell these apart, and a palette opened for something else must not
 * answer a server, so a hidden dialog stays pending (its request, and the task waiting on it,
 * go on) until the user reopens it (the status bar item, Respond to Task...) and answers it, the
 * server withdraws it, or its task ends. Only the dialog's own Decline or Cancel answers no.
 * Hidden, it gives up its turn; reopened, it takes one again. The dialogs that were waiting
 * for it are deferred (`Turns`): the status bar item counts them too, and shows them on request.
 */
export class HiddenDialogs extends DisposableBase {
  readonly #hidden = new Map<vscode.QuickInput, [Turn | undefined, (() => void)?]>();
  readonly #item = this._register(vscode.window.createStatusBarItem('mcpTasks.hiddenDialog', vscode.StatusBarAlignment.Left, 49));
  readonly #turns: Turns | undefined;
  readonly #onDidChange = this._register(new vscode.EventEmitter<void>());
  /** A dialog was hidden, shown again, deferred or let go: `whereIs` may answer otherwise. */
  readonly onDidChange = this.#onDidChange.event;
  /** A dialog takes its turn and shows: what it is about (see `Turn.about`). */
  declare readonly onDidShow: Event<readonly string[]>;

  /** `turns`: the turns the dialogs take, whose deferred dialogs are counted and shown here too. */
  constructor(turns?: Turns) {
    super();
    this.#turns = turns;
    this.onDidShow = turns?.onDidShow ?? (() => ({ dispose: noop }));
    if (turns) this._register(turns.onDidChange(() => this.#update()));
    this.#item.name = vscode.l10n.t('MCP Tasks: hidden question');
    this.#item.command = { command: RESPOND_TO_TASK, title: vscode.l10n.t('Show the question again') };
    this.#item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
  }

  /** How many dialogs wait hidden. */
  get size(): number {
    return this.#hidden.size;
  }

  /**
   * Where the dialog about `about` (a task's key) is: shown, waiting for the one shown, deferred
   * (waiting for the user after a hide) or hidden; undefined when there is none.
   */
  whereIs(about: string): DialogPlace {
    for (const [turn] of this.#hidden.values()) if (turn?.about.includes(about)) return 'hidden';
    return this.#turns?.whereIs(about);
  }

  /** `input` was hidden before it was answered: its dialog gives up `turn` until reopened (then `shown` is called). */
  add(input: vscode.QuickInput, turn?: Turn, shown?: () => void): void {
    this.#hidden.set(input, [turn, shown]);
    this.#update();
    turn?.release();
  }

  /** `input` shows again, or is over (answered, withdrawn): it no longer waits. */
  delete(input: vscode.QuickInput): void {
    if (this.#hidden.delete(input)) this.#update();
  }

  /**
   * Shows the dialog hidden first again (with `about`, the first about that task or hosted task), once it has
   * its turn back (at once unless another dialog is shown); else lets the deferred dialogs show (with
   * `about`, the one about it, first). False when there is none.
   */
  reopen(about?: string): boolean {
    const first = [...this.#hidden].find(([, [turn]]) => about === undefined || turn?.about.includes(about));
    if (!first) return !!this.#turns && (about === undefined ? this.#turns.resume() : this.#turns.bring(about));
    const [input, [turn, shown]] = first;
    this.delete(input);
    const again = () => (showAgain(input), shown?.());
    if (turn) turn.retake(again);
    else again();
    return true;
  }

  #update(): void {
    this.#onDidChange.fire();
    const n = this.#hidden.size + (this.#turns?.deferred ?? 0);
    if (!n) return this.#item.hide();
    const count = n === 1 ? vscode.l10n.t('MCP question') : vscode.l10n.t('{0} MCP questions', formatCount(n));
    this.#item.text = `$(comment-unresolved) ${count}`;
    this.#item.tooltip =
      n === 1
        ? vscode.l10n.t('A server waits for your answer (its dialog was hidden). Click to show it.')
        : vscode.l10n.t('Servers wait for your answer (a dialog was hidden without one). Click to show it.');
    // Read out as shown: the count first (the icon says nothing to a screen reader).
    this.#item.accessibilityInformation = { label: `${count}: ${this.#item.tooltip}` };
    this.#item.show();
  }

  override dispose(): void {
    this.#hidden.clear();
    super.dispose();
  }
}

export const showAgain = (input: vscode.QuickInput): void => {
  // Shown again, a quick pick has lost its list's focus (and Enter would accept nothing):
  // its items, focus and checks are sent again first. A box's text, likewise.
  if (isPick(input)) {
    const { activeItems, selectedItems } = input;
    input.items = [...input.items];
    if (input.canSelectMany) input.selectedItems = selectedItems;
    if (activeItems.length) input.activeItems = activeItems;
  } else if (isBox(input)) {
    const { value } = input;
    input.value = value;
  }
  input.show();
};

const isPick = (input: vscode.QuickInput): input is vscode.QuickPick<vscode.QuickPickItem> => 'items' in input;

const isBox = (input: vscode.QuickInput): input is vscode.InputBox => 'value' in input && !('items' in input);
