import * as vscode from 'vscode';
import type { SamplingPreview } from '../../core/sampling/request';
import { onAbort } from '../../core/util/abort';
import type { Turn } from '../../core/util/turns';
import type { HiddenDialogs } from '../hiddenDialogs';
import { showAgain } from '../hiddenDialogs';
import { CIRCLE_SLASH } from '../../core/tasks/presentation';

/** The user's answer to a sampling request. */
export type ConsentAnswer = 'once' | 'always' | 'deny';

export interface ConsentRequest {
  serverId: string;
  serverLabel: string;
  preview: SamplingPreview;
  /** The name of the model the request would go to. */
  model: string;
}

/**
 * Asks the user about one sampling request. Resolves `deny` when the user denies it or `signal`
 * aborts (the server gave up, the task ended, its ttl ran out), so a request never waits forever
 * on a forgotten prompt. `turn` is the prompt's turn among the dialogs servers open.
 */
export type ConsentPrompter = (request: ConsentRequest, signal: AbortSignal, turn?: Turn) => Promise<ConsentAnswer>;

const SCHEME = 'mcp-tasks-sampling';
const uriOf = (key: string, label: string): vscode.Uri => vscode.Uri.from({ scheme: SCHEME, path: `/${label.replace(/[\\/]/g, '_')} sampling request.txt`, query: key });

interface Item extends vscode.QuickPickItem {
  answer: ConsentAnswer | 'show';
}

/** What gives the consent prompt on screen the keyboard back. */
let onScreen: (() => void) | undefined;

/**
 * Gives the consent prompt on screen the keyboard back (a click on its task's row took it), as
 * `focusQuestion` does a question's step: hidden and shown again. False when none is on screen.
 */
export const focusConsent = (): boolean => !!onScreen && (onScreen(), true);

/**
 * The consent prompt: a quick pick (not modal, stays open when focus moves) titled with the
 * server's name, the request's gist as placeholder, and "Show Full Request" opening a read-only
 * document with the whole request, nothing cut. Hidden without an answer (Escape, or another
 * quick input shown over it), it denies nothing: it waits in `hidden` until reopened, and gives
 * up its turn meanwhile.
 */
export class QuickPickConsent implements vscode.Disposable {
  readonly #previews = new Map<string, string>();
  readonly #provider: vscode.Disposable;
  /** An open preview of a request now answered says so, not the request. */
  readonly #changed = new vscode.EventEmitter<vscode.Uri>();
  #seq = 0;

  readonly #hidden: HiddenDialogs | undefined;

  constructor(hidden?: HiddenDialogs) {
    this.#hidden = hidden;
    this.#provider = vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
      onDidChange: this.#changed.event,
      provideTextDocumentContent: (uri) => this.#previews.get(uri.query) ?? vscode.l10n.t('This sampling request has been answered.'),
    });
  }

  readonly prompt: ConsentPrompter = (request, signal, turn) => {
    if (signal.aborted) return Promise.resolve('deny');
    const key = String(++this.#seq);
    this.#previews.set(key, request.preview.full);
    const qp = vscode.window.createQuickPick<Item>();
    qp.title = vscode.l10n.t('MCP server "{0}" asks to use a language model', request.serverLabel);
    qp.placeholder = request.preview.summary;
    qp.ignoreFocusOut = true;
    qp.matchOnDetail = false;
    qp.items = [
      { answer: 'once', iconPath: new vscode.ThemeIcon('check'), label: vscode.l10n.t('Allow once'), detail: vscode.l10n.t('Send this request to {0} and return the answer to the server', request.model) },
      { answer: 'always', iconPath: new vscode.ThemeIcon('check-all'), label: vscode.l10n.t('Always allow server "{0}"', request.serverLabel), detail: vscode.l10n.t('Do not ask again (undo with "MCP Tasks: Revoke Sampling Permissions...")') },
      { answer: 'deny', iconPath: new vscode.ThemeIcon(CIRCLE_SLASH), label: vscode.l10n.t('Deny'), detail: vscode.l10n.t('Send nothing to a language model and tell the server that you rejected its request') },
      { answer: 'show', iconPath: new vscode.ThemeIcon('eye'), label: vscode.l10n.t('Show Full Request'), detail: vscode.l10n.t('Open the system prompt and messages in an editor') },
    ];
    return new Promise<ConsentAnswer>((resolve) => {
      const subs: vscode.Disposable[] = [];
      let settled = false;
      // Set for the hide of focus(), which is no user's.
      let refocus = false;
      const focus = () => ((refocus = true), qp.hide(), showAgain(qp));
      const shown = () => (onScreen = focus);
      const off = () => onScreen === focus && (onScreen = undefined);
      const finish = (answer: ConsentAnswer) => {
        if (settled) return;
        settled = true;
        off();
        stop();
        for (const s of subs) s.dispose();
        this.#hidden?.delete(qp);
        qp.dispose();
        this.#previews.delete(key);
        this.#changed.fire(uriOf(key, request.serverLabel));
        resolve(answer);
      };
      const stop = onAbort(signal, () => finish('deny'));
      subs.push(
        qp.onDidAccept(() => {
          const answer = qp.selectedItems[0]?.answer;
          if (answer === 'show') void this.#showPreview(key, request.serverLabel);
          else if (answer) finish(answer);
        }),
        // Escape, or another quick input shown over this one: no answer yet (without a place to
        // wait, no consent).
        qp.onDidHide(() => (refocus ? (refocus = false) : this.#hidden ? (off(), this.#hidden.add(qp, turn, shown)) : finish('deny'))),
      );
      qp.show();
      shown();
    });
  };

  async #showPreview(key: string, label: string): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(uriOf(key, label));
    // preserveFocus keeps the prompt answerable from the keyboard.
    await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: true, viewColumn: vscode.ViewColumn.Beside });
  }

  dispose(): void {
    this.#provider.dispose();
    this.#changed.dispose();
    this.#previews.clear();
  }
}
