// The `${input:ID}` values of mcp.json: prompts in the editor's own input box, and command inputs run through the editor's commands.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { InputDef, ServerConfig } from '../../src/core/config/types';
import { InputPrompter } from '../../src/vscode/inputs';
import { waitFor } from './helpers';
import { QuickInputSpy, accept, choose, escape } from './quickInputs';
import { cleanUp, publicApi } from './taskApiHelpers';

const TASK_LAB = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'servers', 'task-lab.mjs');

suite('Inputs of mcp.json', () => {
  let spy: QuickInputSpy;
  setup(() => (spy = new QuickInputSpy()));
  teardown(() => spy.dispose());

  /** An extension context whose secret storage and global state live in memory. */
  const memoryContext = () => {
    const secrets = new Map<string, string>();
    const state = new Map<string, unknown>();
    return {
      secrets: { get: async (k: string) => secrets.get(k), store: async (k: string, v: string) => void secrets.set(k, v), delete: async (k: string) => void secrets.delete(k) },
      globalState: { get: (k: string) => state.get(k), update: async (k: string, v: unknown) => void state.set(k, v) },
    } as unknown as vscode.ExtensionContext;
  };

  test('two servers of one file that connect together and use the same input: asked once, and both get the answer (a second box would close the first, as Escape does)', async () => {
    const token: InputDef = { type: 'promptString', id: 'token', description: 'API token', password: true };
    const source = { kind: 'workspaceFolder', folderName: 'app', folderPath: '/work/app', file: '/work/app/.vscode/mcp.json' } as const;
    const server = (name: string): ServerConfig => ({ id: `folder:/work/app:${name}`, name, label: name, source, inputs: [token], type: 'http', url: 'https://example.com/mcp', headers: {} });
    const prompter = new InputPrompter(memoryContext());
    spy.type('s3cret');
    const both = Promise.all([prompter.prompt(token, server('issues')), prompter.prompt(token, server('pulls'))]);
    await spy.next('the input box of the token');
    await accept();
    assert.deepEqual(await both, ['s3cret', 's3cret']);
    assert.deepEqual(spy.shown.map((s) => [s.kind, s.text]), [['input', 'API token']], 'one input box');
  });

  test("an input's description and options come from a cloned repository's mcp.json: shown as text (no icon, no link, on one line), the value picked unchanged", async () => {
    const source = { kind: 'workspaceFolder', folderName: 'app', folderPath: '/work/app', file: '/work/app/.vscode/mcp.json' } as const;
    const server: ServerConfig = { id: 'folder:/work/app:s', name: 's', label: 's', source, inputs: [], type: 'http', url: 'https://example.com/mcp', headers: {} };
    const hostile = '$(shield) Verified: [Open](command:workbench.action.openSettings)\u202E token';
    const prompter = new InputPrompter(memoryContext());
    spy.type('typed');
    const typed = prompter.prompt({ type: 'promptString', id: 'a', description: hostile, password: false }, server);
    await spy.next('the input box');
    await accept();
    assert.equal(await typed, 'typed');
    // The prompt under an input box draws icons and links; a pick's placeholder shows as sent, on one line.
    const picked = prompter.prompt({ type: 'pickString', id: 'b', description: hostile, options: [{ label: '$(check) [Fast](command:x)', value: '$(check) [v](command:y)' }] }, server);
    const pick = await spy.next('the pick');
    await accept();
    assert.equal(await picked, '$(check) [v](command:y)');
    assert.deepEqual(
      spy.shown.map((s) => [s.text, s.items]),
      [
        ['\\$(shield) Verified: [Open] (command:workbench.action.openSettings)  token', []],
        ['$(shield) Verified: [Open](command:workbench.action.openSettings)  token', [{ label: '\\$(check) [Fast] (command:x)', icon: undefined, description: '\\$(check) [v] (command:y)', detail: undefined }]],
      ],
    );
    assert.equal(pick.kind, 'pick');
  });

  /** Runs `body` with `servers` and `inputs` added to the workspace's mcp.json, then puts the file back and forgets the values saved. */
  const withServers = async (servers: Record<string, unknown>, inputs: unknown[], body: () => Promise<void>) => {
    const file = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.vscode', 'mcp.json');
    const original = fs.readFileSync(file, 'utf8');
    const api = await publicApi();
    try {
      const listed = inputs.map((i) => JSON.stringify(i)).join(', ');
      fs.writeFileSync(file, original.replace('"servers": {', `"servers": {\n    ${JSON.stringify(servers).slice(1, -1)},`).replace('"inputs": [', `"inputs": [\n    ${listed},`));
      for (const label of Object.keys(servers)) await waitFor(() => api.getServers().find((s) => s.label === label), `the ${label} server of mcp.json`);
      await body();
    } finally {
      fs.writeFileSync(file, original);
      await vscode.commands.executeCommand('mcpTasks.refresh');
      await cleanUp(api, []);
      await vscode.commands.executeCommand('mcpTasks.forgetSavedInputs');
    }
  };

  /** Runs Run Tool as Task from the palette and picks `label` on its server step; `done`: the command ended. */
  const runToolOn = async (label: string) => {
    spy.skipShown();
    const done = vscode.commands.executeCommand('mcpTasks.runToolAsTask');
    const s = await spy.next('the server pick', 30_000);
    await choose(s, (i) => i.label === label, label);
    return { done };
  };

  test('Run Tool as Task on a server that needs an input: the input is asked, then the tool step follows (the prompt hides the busy server step, which is no Escape); Escape on the input ends it quietly', async function () {
    this.timeout(60_000);
    const lab = { type: 'stdio', command: 'node', args: [TASK_LAB, 'stdio', '--token', '${input:labToken}'] };
    await withServers({ 'needs-input': lab }, [{ type: 'promptString', id: 'labToken', description: 'Token for needs-input', password: true }], async () => {
      spy.type('s3cret');
      let { done } = await runToolOn('needs-input');
      const box = await spy.next('the input of needs-input');
      assert.deepEqual([box.kind, box.title, box.text], ['input', 'MCP server "needs-input"', 'Token for needs-input']);
      await accept();
      const again = await spy.next('the server step again, once the input is answered');
      assert.equal(again.title, 'Run Tool as Task (1/4): server');
      // As it showed: by the time this line runs, the server may have connected and the pick gone idle.
      assert.deepEqual([again.busy, again.enabled], [true, false], 'busy while the server connects');
      const tools = await spy.next('the tool pick after the input', 30_000);
      assert.equal(tools.title, 'Run Tool as Task (2/3): tool of needs-input', 'of 3: its tools take no arguments');
      assert.ok(tools.items.some((i) => i.label === 'work'), JSON.stringify(tools.items));
      await escape();
      await done;

      // Asked again: Escape there is a cancel, of the input and of the command.
      await vscode.commands.executeCommand('mcpTasks.forgetSavedInputs');
      await cleanUp(await publicApi(), []);
      spy.messages.length = 0;
      ({ done } = await runToolOn('needs-input'));
      await spy.next('the input of needs-input, asked again');
      const shown = spy.shown.length;
      await escape();
      await done;
      await new Promise((r) => setTimeout(r, 300)); // a message or a step would show by now
      assert.deepEqual(spy.shown.slice(shown).map((s) => s.title), [], 'no step after Escape');
      assert.deepEqual(spy.messages, [], 'Escape on an input is no error');
    });
  });

  test('a tool run waiting for its server\'s input while mcp.json is edited: the prompt closes, the new configuration asks its own, and the run goes on with the new configuration (it failed: Connection to "edited" was cancelled)', async function () {
    this.timeout(60_000);
    const lab = { type: 'stdio', command: 'node', args: [TASK_LAB, 'stdio', '--token', '${input:editedToken}'] };
    await withServers({ edited: lab }, [{ type: 'promptString', id: 'editedToken', description: 'Token for edited', password: true }], async () => {
      const api = await publicApi();
      const id = api.getServers().find((s) => s.label === 'edited')!.id;
      spy.skipShown();
      const run = api.runTool(id, 'work', { arguments: { tag: 'edited-while-asked', durationMs: 100 } });
      const old = await spy.next('the input of edited');
      assert.equal(old.text, 'Token for edited');
      // The edit a user saves meanwhile: another poll interval (which tells the processes apart), and the input's description.
      const file = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.vscode', 'mcp.json');
      const text = fs.readFileSync(file, 'utf8');
      fs.writeFileSync(file, text.replace('"${input:editedToken}"', '"${input:editedToken}","--poll-interval","700"').replace('"Token for edited"', '"Token for edited, as edited"'));
      spy.type('s3cret');
      const asked = await spy.next('the input asked for the new configuration', 30_000);
      assert.equal(asked.text, 'Token for edited, as edited');
      await accept();
      const task = await run;
      await cleanUp(api, [task.id]);
      assert.equal(task.pollInterval, 700, 'a task of the process started with the new configuration');
    });
  });

  test('Run Tool as Task on a server that refuses the token typed into its input (401): it says so, as Connect Server does, with Show Log and Open Configuration', async function () {
    this.timeout(60_000);
    const child = spawn(process.execPath, [TASK_LAB, 'http', '--port', '0', '--require', 'authorization=Bearer right'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      const port = await waitFor(() => /listening (\d+)/.exec(out)?.[1], 'task-lab over HTTP');
      const refusing = { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: 'Bearer ${input:refusedToken}' } };
      await withServers({ refusing }, [{ type: 'promptString', id: 'refusedToken', description: 'Token for refusing', password: true }], async () => {
        spy.messages.length = 0;
        spy.type('wrong');
        const { done } = await runToolOn('refusing');
        await spy.next('the input of refusing');
        await accept();
        const n = await waitFor(() => spy.messages.findIndex((m) => m.startsWith('Could not connect to MCP server "refusing": ')) + 1, `the error (got ${JSON.stringify(spy.messages)})`, 20_000);
        assert.match(spy.messages[n - 1], /^Could not connect to MCP server "refusing": it refused the request \(HTTP 401 Unauthorized\)/);
        assert.doesNotMatch(spy.messages[n - 1], /wrong/, 'the token typed is not repeated');
        assert.deepEqual(spy.messageItems[n - 1], ['Show Log', 'Open Configuration']);
        await done;
        assert.ok(!spy.shown.some((s) => s.title?.includes('tool of refusing')), 'no tool step');
      });
    } finally {
      child.kill();
    }
  });

  test('a command input: the server gets the string the command returns, run with its args at each connection; a command that returns undefined cancels the connection', async function () {
    this.timeout(90_000);
    const api = await publicApi();
    const file = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.vscode', 'mcp.json');
    const original = fs.readFileSync(file, 'utf8');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-command-input-'));
    const spawnLog = path.join(dir, 'spawns');
    // The command gives task-lab the file it notes its start in: the note is the proof that the value reached the server.
    const calls: unknown[] = [];
    let answer: string | undefined = spawnLog;
    const command = vscode.commands.registerCommand('mcpTasksTest.spawnLog', (arg: unknown) => (calls.push(arg), answer));
    const lab = { type: 'stdio', command: 'node', args: [TASK_LAB, 'stdio', '--spawn-log', '${input:spawnLog}'] };
    const input = { type: 'command', id: 'spawnLog', command: 'mcpTasksTest.spawnLog', args: { from: 'the test' } };
    assert.ok(original.includes('"servers": {') && original.includes('"inputs": ['), 'the servers and inputs of the test workspace');
    let id: string | undefined;
    try {
      fs.writeFileSync(file, original.replace('"servers": {', `"servers": {\n    "cmdlab": ${JSON.stringify(lab)},`).replace('"inputs": [', `"inputs": [\n    ${JSON.stringify(input)},`));
      id = await waitFor(() => api.getServers().find((s) => s.label === 'cmdlab')?.id, 'the cmdlab server of mcp.json');
      assert.ok((await api.getTools(id)).some((t) => t.name === 'work'), 'task-lab connected');
      assert.deepEqual(calls, [{ from: 'the test' }], 'run once, with its args');
      assert.equal(fs.readFileSync(spawnLog, 'utf8').trim().split('\n').length, 1, 'task-lab started with the path the command returned');

      // Run again at the next connection (not kept); this time it returns undefined: cancelled, nothing started.
      await cleanUp(api, []);
      answer = undefined;
      await assert.rejects(api.getTools(id), /No value was given for input "spawnLog" from command "mcpTasksTest\.spawnLog"\./);
      assert.equal(calls.length, 2, 'run again');
      assert.equal(fs.readFileSync(spawnLog, 'utf8').trim().split('\n').length, 1, 'no second process');
    } finally {
      command.dispose();
      fs.writeFileSync(file, original);
      await vscode.commands.executeCommand('mcpTasks.refresh'); // read again before the next suites
      await cleanUp(api, []);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
