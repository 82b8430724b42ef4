// The view's row menus (package.json `contributes.menus`): each row offers the actions that work
// in its state. Row contextValues are as src/vscode/tree/tasksTree.ts builds them.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

interface MenuItem {
  command: string;
  when?: string;
  group?: string;
}

const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../../package.json'), 'utf8')) as {
  contributes: {
    menus: Record<string, MenuItem[]>;
    commands: Array<{ command: string; title: string; enablement?: string; icon?: string }>;
    languageModelTools: Array<{ name: string; icon?: string; when?: string }>;
  };
};

/** The clauses these menus use: `view == X` and `viewItem =~ /re/`, joined by `&&`. */
function matches(when: string | undefined, view: string, viewItem: string): boolean {
  return (when ?? '').split('&&').every((raw) => {
    const clause = raw.trim();
    const eq = /^view == (\S+)$/.exec(clause);
    if (eq) return eq[1] === view;
    const re = /^viewItem =~ \/(.*)\/$/.exec(clause);
    if (re) return new RegExp(re[1]).test(viewItem);
    throw new Error(`a clause this test does not read: ${clause}`);
  });
}

/** The commands a row offers: inline buttons, and the context menu. */
function offered(viewItem: string): { inline: string[]; context: string[] } {
  const items = manifest.contributes.menus['view/item/context'].filter((m) => matches(m.when, 'mcpTasks.tasks', viewItem));
  return {
    inline: items.filter((m) => m.group?.startsWith('inline')).map((m) => m.command),
    context: items.filter((m) => !m.group?.startsWith('inline')).map((m) => m.command),
  };
}

describe('the view\'s row menus', () => {
  // Row contextValues: connected `server disconnectable restartable`; idle or failed `server connectable`;
  // not connected with a new configuration waiting for its tasks `server connectable restartable`.
  const connection = (viewItem: string) => offered(viewItem).context.filter((c) => /Server$/.test(c));

  it('a connected server offers Disconnect and Restart; an idle one Connect', () => {
    assert.deepEqual(offered('server disconnectable restartable').inline.sort(), ['mcpTasks.disconnectServer', 'mcpTasks.restartServer']);
    assert.deepEqual(connection('server disconnectable restartable'), ['mcpTasks.disconnectServer', 'mcpTasks.restartServer']);
    assert.deepEqual(offered('server connectable').inline, ['mcpTasks.connectServer']);
  });

  it('a server that failed (its row as an idle one\'s) offers one action, Connect, inline and in its menu: Connect tries at once, so Restart did the same under another name', () => {
    const { inline } = offered('server connectable');
    assert.deepEqual([inline, connection('server connectable')], [['mcpTasks.connectServer'], ['mcpTasks.connectServer']]);
  });

  it('a server not connected whose new configuration waits for its tasks offers Restart beside Connect: Restart applies the new configuration now (its tooltip says so), Connect keeps the one its tasks are at', () => {
    assert.deepEqual(offered('server connectable restartable').inline, ['mcpTasks.connectServer']);
    assert.deepEqual(connection('server connectable restartable'), ['mcpTasks.connectServer', 'mcpTasks.restartServer']);
  });

  it('every inline button of a row is in its context menu too: the keyboard (Shift+F10) reaches a row\'s actions only there', () => {
    const rows = [
      'server disconnectable restartable',
      'server connectable',
      'server connectable restartable',
      'task task cancelable respondable live',
      'task task hasResult finished',
      'task direct cancelable live',
      'hosted cancelable live respondable',
      'removedServer stoppable',
    ];
    for (const row of rows) {
      const { inline, context } = offered(row);
      assert.deepEqual(inline.filter((c) => !context.includes(c)), [], `row "${row}": inline ${inline.join(', ')}; context menu ${context.join(', ')}`);
    }
  });

  it('a live row\'s Cancel Task acts at once, so its title has no ellipsis (VS Code\'s rule: "..." only where more is asked); the palette\'s asks which task, and keeps it', () => {
    const title = (id: string) => manifest.contributes.commands.find((c) => c.command === id)?.title;
    for (const row of ['task task cancelable respondable live', 'task direct cancelable live', 'hosted cancelable live respondable']) {
      const { inline, context } = offered(row);
      const cancels = [...inline, ...context].filter((c) => /cancel/i.test(c));
      assert.deepEqual(cancels.map(title), ['Cancel Task', 'Cancel Task'], `row "${row}": ${cancels.join(', ')}`);
    }
    assert.equal(title('mcpTasks.cancelTask'), 'Cancel Task...');
    assert.ok(!manifest.contributes.menus.commandPalette.some((m) => m.command === 'mcpTasks.cancelTask'), 'the palette offers Cancel Task...');
  });

  it('a finished task, direct call or hosted question offers Remove from List in its context menu; a live one does not', () => {
    for (const row of ['task task hasResult finished', 'task direct finished', 'hosted finished']) assert.ok(offered(row).context.includes('mcpTasks.removeTask'), row);
    for (const row of ['task task cancelable live', 'task direct cancelable live', 'hosted cancelable live respondable', 'server connectable']) {
      const { inline, context } = offered(row);
      assert.ok(![...inline, ...context].includes('mcpTasks.removeTask'), row);
    }
  });

  it('a finished task of ours (its tool and arguments known) offers Run Again in its context menu; a live one, or one found through tasks/list (no tool known), does not', () => {
    for (const row of ['task task hasResult finished rerunnable', 'task direct finished rerunnable']) assert.deepEqual(offered(row).context.filter((c) => c === 'mcpTasks.runAgain'), ['mcpTasks.runAgain'], row);
    for (const row of ['task task cancelable live', 'task task hasResult finished']) assert.ok(!offered(row).context.includes('mcpTasks.runAgain'), row);
  });

  it('a server\'s menu offers Open MCP Configuration (its entry, the cursor on its name) and Show Log', () => {
    for (const row of ['server disconnectable restartable', 'server connectable']) assert.deepEqual(offered(row).context.slice(-2), ['mcpTasks.openConfiguration', 'mcpTasks.showLog'], row);
  });

  it('a server removed from the configuration offers nothing that would reach it', () => {
    const { inline, context } = offered('removedServer');
    assert.deepEqual([...inline, ...context], []);
  });

  it('a removed server whose connection stays for its live tasks offers Disconnect only, inline and in its menu: it ends it before they end', () => {
    const { inline, context } = offered('removedServer stoppable');
    assert.deepEqual([inline, context], [['mcpTasks.disconnectServer'], ['mcpTasks.disconnectServer']]);
  });

  it('each command has a codicon of its own: Fetch Task Result says download (cloud-download), not the output of Show Log', () => {
    const icons = manifest.contributes.commands.filter((c) => c.icon);
    const shared = icons.filter((c) => icons.some((o) => o !== c && o.icon === c.icon)).map((c) => `${c.command} ${c.icon}`);
    assert.deepEqual(shared, []);
    assert.equal(icons.find((c) => c.command === 'mcpTasks.fetchResult')?.icon, '$(cloud-download)');
  });

  it('a chat tool with a command\'s icon does what that command does: Get MCP Task Result shows Fetch Task Result\'s download (cloud-download), not Show Log\'s output', () => {
    // The tools that do what a command does, and that command.
    const counterpart: Record<string, string> = {
      mcpTasks_startTask: 'mcpTasks.runToolAsTask',
      mcpTasks_getResult: 'mcpTasks.fetchResult',
      // The row's Cancel Task, which has the icon (the palette's asks which task first).
      mcpTasks_cancelTask: 'mcpTasks.cancelTaskRow',
    };
    const { commands, languageModelTools: tools } = manifest.contributes;
    const borrowed = tools.flatMap((t) => commands.filter((c) => c.icon === t.icon && c.command !== counterpart[t.name]).map((c) => `${t.name} ${t.icon} of ${c.command}`));
    assert.deepEqual(borrowed, []);
    assert.equal(tools.find((t) => t.name === 'mcpTasks_getResult')?.icon, '$(cloud-download)');
  });

  it('Clear Finished Tasks is disabled (title button and palette) while no finished row is shown: its enablement is the key mcpTasks.hasFinished, which the view sets', () => {
    assert.equal(manifest.contributes.commands.find((c) => c.command === 'mcpTasks.clearFinished')?.enablement, 'mcpTasks.hasFinished');
    const tree = fs.readFileSync(path.resolve(__dirname, '../../../../src/vscode/tree/tasksTree.ts'), 'utf8');
    assert.match(tree, /\bsetContext\('mcpTasks\.hasFinished'/, 'the view sets the key');
  });

  it('the chat tools are offered to models only where a server is configured, a configuration error is to report or a task is tracked (ux14 F12; see chatReach.test.ts): their when clause is the key mcpTasks.hasServers, which the extension sets', () => {
    const tools = manifest.contributes.languageModelTools;
    assert.deepEqual(
      tools.map((t) => [t.name, t.when]),
      tools.map((t) => [t.name, 'mcpTasks.hasServers']),
    );
    const extension = fs.readFileSync(path.resolve(__dirname, '../../../../src/extension.ts'), 'utf8');
    assert.match(extension, /\bsetContext\('mcpTasks\.hasServers'/, 'the extension sets the key');
  });
});
