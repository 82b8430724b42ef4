// The `${input:ID}` values of mcp.json: prompts in the editor's own input box, and command inputs run through the editor's commands.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { InputDef, ServerConfig } from '../../src/core/config/types';
import { InputPrompter } from '../../src/vscode/inputs';
import { waitFor } from './helpers';
import { QuickInputSpy, accept } from './quickInputs';
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
      await assert.rejects(api.getTools(id), /cancelled \(no value given for input "spawnLog" from command "mcpTasksTest\.spawnLog"\)/);
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
