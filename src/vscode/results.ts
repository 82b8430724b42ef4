import * as vscode from 'vscode';
import type { TaskEngine } from '../core/tasks/engine';
import { formatOutcome, showsImage } from '../core/tasks/resultFormat';
import { runTitle } from '../core/tasks/presentation';
import type { TaskSnapshot } from '../core/tasks/types';
import { DisposableBase } from '../core/util/event';
import { noop } from '../core/util/promise';
import { fileName } from '../core/util/text';
import { executeCommand } from './editorCommands';

export const RESULT_SCHEME = 'mcp-task-result';

/** Results as read-only Markdown documents; a document updates when what it shows of its task changes (not at each progress notification), or the task is cleared. */
export class ResultDocuments extends DisposableBase implements vscode.TextDocumentContentProvider {
  readonly #onDidChange = this._register(new vscode.EventEmitter<vscode.Uri>());
  readonly onDidChange = this.#onDidChange.event;
  /** Open documents by task key, with the text each shows: only a change of it redraws one. */
  readonly #open = new Map<string, [uri: vscode.Uri, text: string]>();
  readonly #engine: TaskEngine;
  /** A server's name as the view shows it ("lab (docs)"), for the heading. */
  readonly #label: (serverId: string) => string;

  constructor(engine: TaskEngine, label: (serverId: string) => string) {
    super();
    this.#engine = engine;
    this.#label = label;
    this._register(vscode.workspace.registerTextDocumentContentProvider(RESULT_SCHEME, this));
    // A document follows its task: a new outcome or status, or the task cleared (its result deleted).
    const refresh = (key: string) => {
      const open = this.#open.get(key);
      // Its text now against the one it shows (kept as the new one).
      if (open && open[1] !== (open[1] = this.#text(open[0]))) this.#onDidChange.fire(open[0]);
    };
    this._register(engine.onDidChange((t) => refresh(t.key)));
    this._register(engine.onDidRemove(refresh));
    this._register(vscode.workspace.onDidCloseTextDocument((d) => d.uri.scheme === RESULT_SCHEME && this.#open.delete(d.uri.query)));
  }

  /**
   * A task's document, named as its row and its server as the view names them
   * (`/lab (docs)/work (4:47 PM).md`): the tab reads `work (4:47 PM).md`, and the editor adds the
   * server where two tabs read alike. Found by its key and creation time (the creation time tells
   * this task from a newer one its server gave the same id), never by its name: a tab named
   * otherwise (an earlier version's `work-<id>.md`) still shows its task, and an open one is
   * reused: a row's title changes when the tool runs again.
   */
  #uriFor(t: TaskSnapshot): vscode.Uri {
    // Read here (a tab shown, a preview's document), or a tab restored with the window and not shown yet.
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((b) => (b.input as vscode.TabInputText | undefined)?.uri));
    return (
      [this.#open.get(t.key)?.[0], ...tabs].find((u) => u?.scheme === RESULT_SCHEME && u.query === t.key && u.fragment === t.createdAt) ??
      vscode.Uri.from({ scheme: RESULT_SCHEME, path: `/${fileName(this.#label(t.serverId))}/${fileName(runTitle(this.#engine.list(), t))}.md`, query: t.key, fragment: t.createdAt })
    );
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    // Asked again after a change fired for it: the text that change worked out, not a second one.
    const known = this.#open.get(uri.query);
    if (known?.[1] && `${known[0]}` === `${uri}`) return known[1];
    const t = this.#get(uri);
    const open: [vscode.Uri, string] = [uri, ''];
    this.#open.set(uri.query, open);
    // A result kept from an earlier window is read when asked for, and a tab the window restores
    // asks here first: read before answering, or the tab says none was fetched.
    if (t?.outcomeFetchedAt && !t.outcome) await this.#engine.fetchResult(t.key, true).catch(noop);
    return (open[1] = this.#text(uri));
  }

  #get(uri: vscode.Uri): TaskSnapshot | undefined {
    return this.#engine.get(uri.query, uri.fragment || undefined);
  }

  /** What the document of `uri` shows. */
  #text(uri: vscode.Uri): string {
    const t = this.#get(uri);
    return t ? formatOutcome(t, this.#label(t.serverId)) : '# Task removed\n\nThis task is no longer in the MCP Tasks view (removed or cleared from it, or older than `mcpTasks.retentionDays`), and any result kept for it was deleted with it.\n';
  }

  /**
   * Opens the result of a task as a read-only Markdown document; a result with images opens in
   * the Markdown preview, which renders them (the source is a click away, and shown when the
   * preview is not available), unless the server's text there could fetch from the network
   * (showsImage): then as text, its preview a click away. Locked: a preview left dynamic follows the active Markdown editor,
   * so the next result opened took its place.
   */
  async show(t: TaskSnapshot): Promise<void> {
    const uri = this.#uriFor(t);
    const doc = await vscode.workspace.openTextDocument(uri);
    // The task as the document shows it (a result kept from an earlier window is read for it).
    if (showsImage(this.#engine.get(t.key, t.createdAt))) {
      const shown = await executeCommand('markdown.showPreview', uri, undefined, { locked: true }).then(
        () => true,
        () => false,
      );
      if (shown) return;
    }
    await vscode.window.showTextDocument(doc, { preview: true });
  }
}
