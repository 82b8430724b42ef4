import * as vscode from 'vscode';
import type { ConfigError } from '../../core/config/types';
import type { ServerManager, ServerSnapshot } from '../../core/servers/serverManager';
import { DisposableBase } from '../../core/util/event';
import { SERVER_STATE_ICON, asThemeIcon } from './icons';

export type Node = { kind: 'server'; id: string } | { kind: 'configError'; index: number };

/** A plain view of a row, for tests and the public API. */
export interface RowSnapshot {
  id?: string;
  label: string;
  description?: string;
  tooltip?: string;
  contextValue?: string;
  icon?: string;
  children?: RowSnapshot[];
}

/** Describes a server's state in a few words for the row's description. */
export function describeServer(s: ServerSnapshot): string {
  switch (s.state.kind) {
    case 'idle':
      return 'not connected';
    case 'connecting':
      return 'connecting…';
    case 'connected':
      return s.tasks ? `connected · tasks: ${s.tasks}` : 'connected · no tasks';
    case 'error':
      return `error: ${s.state.message ?? 'unknown'}`;
    case 'blocked':
      return `not started: ${s.state.message ?? ''}`;
  }
}

/** The Tasks view: servers, and under each its tasks. Only changed nodes are refreshed. */
export class TasksTreeProvider extends DisposableBase implements vscode.TreeDataProvider<Node> {
  private readonly _onDidChangeTreeData = this._register(new vscode.EventEmitter<Node | undefined>());
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;
  /** Node objects are kept per id so that a refresh of one node finds the same object. */
  private readonly serverNodes = new Map<string, Node>();

  constructor(private readonly servers: ServerManager) {
    super();
    this._register(
      servers.onDidChange((snapshot) => {
        if (snapshot && this.serverNodes.has(snapshot.id)) this._onDidChangeTreeData.fire(this.serverNodes.get(snapshot.id));
        else this._onDidChangeTreeData.fire(undefined);
      }),
    );
  }

  getChildren(element?: Node): Node[] {
    if (element) return [];
    const errors: Node[] = this.servers.errors.map((_, index) => ({ kind: 'configError', index }));
    const live = new Set<string>();
    const servers = this.servers.list().map((s) => {
      live.add(s.id);
      let node = this.serverNodes.get(s.id);
      if (!node) this.serverNodes.set(s.id, (node = { kind: 'server', id: s.id }));
      return node;
    });
    for (const id of this.serverNodes.keys()) if (!live.has(id)) this.serverNodes.delete(id);
    return [...servers, ...errors];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'configError') return this.configErrorItem(this.servers.errors[node.index]);
    const s = this.servers.get(node.id);
    if (!s) return new vscode.TreeItem('(removed)');
    const item = new vscode.TreeItem(s.label, vscode.TreeItemCollapsibleState.None);
    item.id = `server:${s.id}`;
    item.description = describeServer(s);
    item.iconPath = asThemeIcon(SERVER_STATE_ICON[s.state.kind]);
    const up = s.state.kind === 'connected' || s.state.kind === 'connecting';
    item.contextValue = ['server', up ? 'disconnectable' : 'connectable', s.state.kind === 'error' ? 'failed' : ''].filter(Boolean).join(' ');
    const tip = new vscode.MarkdownString(undefined, true);
    tip.appendMarkdown(`**${escapeMd(s.label)}** (${s.type})\n\n`);
    tip.appendMarkdown(`State: ${escapeMd(describeServer(s))}\n\n`);
    if (s.serverInfo) tip.appendMarkdown(`Server: ${escapeMd(`${s.serverInfo.name} ${s.serverInfo.version}`)}, MCP ${escapeMd(s.protocolVersion ?? '')}\n\n`);
    tip.appendMarkdown(`Source: ${escapeMd(s.source.kind === 'settings' ? 'setting mcpTasks.servers' : s.source.file)}`);
    item.tooltip = tip;
    item.accessibilityInformation = { label: `Server ${s.label}, ${describeServer(s)}` };
    return item;
  }

  private configErrorItem(e: ConfigError | undefined): vscode.TreeItem {
    const item = new vscode.TreeItem(e?.server ? `${e.server}: configuration error` : 'Configuration error');
    item.description = e?.message;
    item.tooltip = e?.message;
    item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
    item.contextValue = 'configError';
    item.command = { command: 'mcpTasks.openConfiguration', title: 'Open MCP Configuration', arguments: [e?.source] };
    return item;
  }

  /** The whole tree as plain rows (for tests and diagnostics). */
  snapshot(): RowSnapshot[] {
    const walk = (nodes: Node[]): RowSnapshot[] =>
      nodes.map((n) => {
        const item = this.getTreeItem(n);
        const kids = this.getChildren(n);
        return {
          id: item.id,
          label: typeof item.label === 'string' ? item.label : (item.label?.label ?? ''),
          description: typeof item.description === 'string' ? item.description : undefined,
          tooltip: typeof item.tooltip === 'string' ? item.tooltip : item.tooltip?.value,
          contextValue: item.contextValue,
          icon: item.iconPath instanceof vscode.ThemeIcon ? item.iconPath.id : undefined,
          children: kids.length ? walk(kids) : undefined,
        };
      });
    return walk(this.getChildren());
  }
}

function escapeMd(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
