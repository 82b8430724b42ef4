// The view's welcome (package.json `contributes.viewsWelcome`): what an empty Tasks view says in
// each state. Context keys are as src/extension.ts sets them; `config.*` keys are settings.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

interface Welcome {
  view: string;
  contents: string;
  when?: string;
}

const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../../package.json'), 'utf8')) as { contributes: { viewsWelcome: Welcome[] } };

/** The clauses these entries use: `key`, `!key`, `key == value` and `key != value`, joined by `&&`. */
function holds(when: string | undefined, keys: Record<string, boolean | string>): boolean {
  return (when ?? '').split('&&').every((raw) => {
    const m = /^(!?)([\w.]+)(?: ([!=])= (\w+))?$/.exec(raw.trim());
    if (!m || !(m[2] in keys)) throw new Error(`a clause this test does not read: ${raw.trim()}`);
    return m[3] ? (keys[m[2]] === m[4]) === (m[3] === '=') : keys[m[2]] !== (m[1] === '!');
  });
}

/** What the empty view says in this state: the contents of every entry whose `when` holds. */
function shown(keys: Record<string, boolean | string>): string[] {
  return manifest.contributes.viewsWelcome.filter((w) => w.view === 'mcpTasks.tasks' && holds(w.when, keys)).map((w) => w.contents);
}

describe('the view\'s welcome', () => {
  /** `workbenchState`: 'folder' or 'workspace' with folders open, 'empty' in a window with none. */
  const state = (ready: boolean, hasServers: boolean, readsMcpJson: boolean, workbenchState = 'folder') => ({ 'mcpTasks.ready': ready, 'mcpTasks.hasServers': hasServers, 'config.mcpTasks.readWorkspaceMcpJson': readsMcpJson, workbenchState });

  it('says one thing in each state: loading, no server (add some), or mcp.json not read; nothing once servers are listed', () => {
    for (const reads of [true, false]) {
      assert.deepEqual(shown(state(false, false, reads)), ['Loading MCP servers...']);
      assert.deepEqual(shown(state(true, true, reads)), []);
      assert.equal(shown(state(true, false, reads)).length, 1);
    }
    assert.match(shown(state(true, false, true))[0], /^No MCP servers are configured\.\nAdd servers to this folder's \.vscode\/mcp\.json/);
  });

  it('with mcpTasks.readWorkspaceMcpJson off, says that .vscode/mcp.json is not read and opens that setting, instead of asking to add servers to it', () => {
    const [text] = shown(state(true, false, false));
    assert.doesNotMatch(text, /Add servers to this folder's \.vscode\/mcp\.json/);
    assert.match(text, /neither \.vscode\/mcp\.json nor your user mcp\.json is read: the "mcpTasks\.readWorkspaceMcpJson" setting is off/);
    assert.match(text, /\[Open Setting\]\(command:workbench\.action\.openSettings\?%5B%22mcpTasks\.readWorkspaceMcpJson%22%5D\)/);
  });

  it('links the "mcpTasks.servers" setting it names, and sends no one to the log, which says nothing of an empty configuration', () => {
    const [text] = shown(state(true, false, true));
    // In the Workspace tab, as "this folder" says: in a remote window (code-server) the User tab
    // hides this machine-overridable setting ("No Settings Found").
    assert.match(text, /\["mcpTasks\.servers" setting\]\(command:workbench\.action\.openWorkspaceSettings\?%5B%22mcpTasks\.servers%22%5D\)/);
    for (const reads of [true, false]) assert.doesNotMatch(shown(state(true, false, reads))[0], /command:mcpTasks\.showLog/);
  });

  it('in a window with no folder, links the setting in the user settings (the Workspace tab needs a folder: the editor would only say "Open a folder or workspace first") and speaks of no "this folder"', () => {
    for (const reads of [true, false]) assert.equal(shown(state(true, false, reads, 'empty')).length, 1);
    const [text] = shown(state(true, false, true, 'empty'));
    assert.doesNotMatch(text, /openWorkspaceSettings|this folder/);
    assert.match(text, /\["mcpTasks\.servers" setting\]\(command:workbench\.action\.openSettings\?%5B%22mcpTasks\.servers%22%5D\)/);
    assert.match(text, /\n\[Open MCP Configuration\]\(command:mcpTasks\.openConfiguration\)$/);
  });

  it('has one button, its main action; Show Log is a link in the text (VS Code draws a line that is only a link as a button)', () => {
    for (const text of manifest.contributes.viewsWelcome.map((w) => w.contents)) {
      const buttons = text.split('\n').filter((line) => /^\[[^\]]+\]\([^)]+\)$/.test(line));
      assert.ok(buttons.length <= 1, `more than one button: ${buttons.join(', ')}`);
      if (text.includes('command:mcpTasks.showLog')) assert.match(text, /\S \[log\]\(command:mcpTasks\.showLog\)/);
    }
    assert.deepEqual(
      [true, false].map((reads) => shown(state(true, false, reads))[0].split('\n').filter((line) => line.startsWith('['))),
      [['[Open MCP Configuration](command:mcpTasks.openConfiguration)'], ['[Open Setting](command:workbench.action.openSettings?%5B%22mcpTasks.readWorkspaceMcpJson%22%5D)']],
    );
  });
});
