// What the in-editor tests expect from the extension. This file is the contract with
// src/extension.ts: activate() returns McpTasksApi, and `testing` lets a test read the tree the
// way a person sees it (labels and descriptions), without reaching into private classes.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

export const EXTENSION_ID = 'mcp-tasks.mcp-tasks';

/** One row of the "Tasks" tree as shown: label, description (a server's state) and children. */
export interface TreeSnapshotNode {
  /** The row's stable id (`hosted:SERVER:TASK` for a question a server had the client run). */
  id?: string;
  label: string;
  description?: string;
  /** What a screen reader says for the row. */
  accessibility?: string;
  /** The hover's text (Markdown source). */
  tooltip?: string;
  /** The words the row's menus match (`server connectable`, `task finished`...). */
  contextValue?: string;
  /** What a click or Enter on the row runs. */
  command?: string;
  /** The codicon of the row's icon (`error`, `pass`...). */
  icon?: string;
  children?: TreeSnapshotNode[];
}

/**
 * The server id of a server's row: `server:ID`, or `server+:ID` while it has tasks (another row to
 * VS Code, so that it is drawn expanded over its first task), else undefined.
 */
export function serverIdOf(row: Pick<TreeSnapshotNode, 'id'>): string | undefined {
  return /^server\+?:(.*)$/s.exec(row.id ?? '')?.[1];
}

/** Test-only hooks exposed on the extension's API object. */
export interface McpTasksTestingApi {
  /** The tree's rows from the root down (server rows at the top level). */
  getTreeSnapshot(): TreeSnapshotNode[] | Promise<TreeSnapshotNode[]>;
  /** Resolves once the configuration (settings and every mcp.json) has been read. */
  whenConfigurationLoaded?(): Promise<void>;
  /** Servers' dialogs hidden without an answer, waiting to be reopened. */
  hiddenDialogs?(): number;
  questionPlace?(key: string): string | undefined;
  /** What the status bar item (its text and tooltip) and the view's badge say. */
  indicators?(): { statusBar?: string; tooltip?: string; badge?: number };
}

/** What `activate()` returns. */
export interface McpTasksApi {
  apiVersion: 1;
  testing?: McpTasksTestingApi;
}

/** Every command the extension contributes (all in category "MCP Tasks"). */
export const COMMAND_IDS = [
  'mcpTasks.runToolAsTask',
  'mcpTasks.cancelTask',
  'mcpTasks.cancelTaskRow',
  'mcpTasks.fetchResult',
  'mcpTasks.refresh',
  'mcpTasks.showLog',
  'mcpTasks.respondToTask',
  'mcpTasks.clearFinished',
  'mcpTasks.removeTask',
  'mcpTasks.runAgain',
  'mcpTasks.connectServer',
  'mcpTasks.disconnectServer',
  'mcpTasks.restartServer',
  'mcpTasks.openConfiguration',
  'mcpTasks.openResult',
  'mcpTasks.clearStoredResults',
  'mcpTasks.revokeSamplingPermissions',
  'mcpTasks.forgetSavedInputs',
  'mcpTasks.declineQuestion',
  'mcpTasks.cancelQuestion',
] as const;

/** The extension under test; fails with a clear message when the editor did not load it. */
export function getExtension(): vscode.Extension<McpTasksApi> {
  const ext = vscode.extensions.getExtension<McpTasksApi>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is not loaded (is extensionDevelopmentPath the repository root?)`);
  return ext;
}

/** Activates the extension (it may already be active after startup) and returns its API. */
export async function activateExtension(): Promise<McpTasksApi> {
  const api = await getExtension().activate();
  assert.ok(api && typeof api === 'object', 'activate() must return the API object { apiVersion: 1, testing }');
  return api;
}

/** The testing hooks, or a failed assertion saying what the extension must export. */
export function testingApi(api: McpTasksApi): McpTasksTestingApi {
  assert.ok(
    api.testing && typeof api.testing.getTreeSnapshot === 'function',
    'activate() must return { apiVersion: 1, testing: { getTreeSnapshot() } } (see test/integration/helpers.ts)',
  );
  return api.testing;
}

/** Depth-first search of a tree snapshot. */
export function findNode(nodes: readonly TreeSnapshotNode[], match: (n: TreeSnapshotNode) => boolean): TreeSnapshotNode | undefined {
  for (const n of nodes) {
    if (match(n)) return n;
    const inner = n.children && findNode(n.children, match);
    if (inner) return inner;
  }
  return undefined;
}

/**
 * Polls `probe` until it returns a truthy value (the editor gives no event for most of what a
 * test waits on), failing after `timeoutMs` with `what` and the last value seen.
 */
export async function waitFor<T>(probe: () => T | Promise<T>, what: string, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await probe();
    if (last) return last as NonNullable<T>;
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}; last value: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Waits until the active editor is as `where` says (its file, its cursor): an editor the extension
 * opened may show, or get its cursor, a moment after the command returns. On timeout it says where
 * the cursor was.
 */
export async function waitForEditor(where: (editor: vscode.TextEditor) => boolean, what: string, timeoutMs = 10_000): Promise<vscode.TextEditor> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const editor = vscode.window.activeTextEditor;
    if (editor && where(editor)) return editor;
    if (Date.now() > deadline) {
      const at = editor?.selection.active;
      assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}; the active editor: ${editor && at ? `${editor.document.uri.fsPath}, the cursor at line ${at.line + 1}, column ${at.character + 1}` : 'none'}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Takes the servers of the `mcpTasks.servers` setting out and waits until the extension has read
 * that (Refresh reads after the change's own reload): the update resolves before, and a test that
 * starts at once would still find them listed, and call one as it goes.
 */
export async function removeSettingServers(): Promise<void> {
  await vscode.workspace.getConfiguration('mcpTasks').update('servers', undefined, vscode.ConfigurationTarget.Global);
  await vscode.commands.executeCommand('mcpTasks.refresh');
}

/** The lines of the "MCP Tasks" log channel, read from its files (run-integration.mjs gives the user data folder). */
export const logText = (): string => {
  const logs = path.join(process.env.MCP_TASKS_USER_DATA_DIR ?? '', 'logs');
  const files = fs.readdirSync(logs, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('MCP Tasks.log'));
  return files.map((f) => fs.readFileSync(path.join(logs, f), 'utf8')).join('\n');
};
