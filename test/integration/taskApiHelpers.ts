// Shared by the in-editor tests of the language-model tools and of the public API.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../api/mcp-tasks';
import { EXTENSION_ID, removeSettingServers, waitFor } from './helpers';

/** out/test/integration -> the fixture in the sources. */
const TASK_LAB = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'servers', 'task-lab.mjs');

/** The public API, as another extension gets it and as the README says to wait for it (no test hook). */
export async function publicApi(): Promise<McpTasksApi> {
  const ext = vscode.extensions.getExtension<McpTasksApi>(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is not loaded`);
  const api = await ext.activate();
  await api.whenReady();
  return api;
}

/** A tool's answer: its text part and its JSON part, parsed. */
export interface ToolAnswer {
  text: string;
  data: Record<string, unknown>;
}

/** Calls one of our tools the way the editor does for an agent (outside a chat request). */
export async function invoke(name: string, input: object): Promise<ToolAnswer> {
  const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
  const values = result.content.map((p) => (p as { value?: unknown }).value);
  assert.equal(values.length, 2, `${name} answers with a text part and a JSON part; got ${JSON.stringify(values)}`);
  assert.ok(result.content.every((p) => p instanceof vscode.LanguageModelTextPart), 'both parts are LanguageModelTextPart');
  return { text: String(values[0]), data: JSON.parse(String(values[1])) as Record<string, unknown> };
}

/**
 * Leaves the window as the next suites expect it: tasks this suite started are cancelled and
 * cleared from the view, and the servers it connected are disconnected again.
 */
export async function cleanUp(api: McpTasksApi, started: readonly string[]): Promise<void> {
  for (const id of started) {
    const t = api.getTask(id);
    if (t && (t.status === 'working' || t.status === 'input_required')) await api.cancelTask(id).catch(() => undefined);
  }
  await vscode.commands.executeCommand('mcpTasks.clearFinished', { confirmed: true });
  for (const s of api.getServers()) {
    if (s.state !== 'idle') await vscode.commands.executeCommand('mcpTasks.disconnectServer', { kind: 'server', id: s.id, confirmed: true });
  }
}

/**
 * A task-lab server named "lab" in the settings: its tool `work`, called with `held: true`, makes
 * a task that works until `release()` (SIGUSR2 to its process, whose pid it notes in a spawn log),
 * so a test sees it working however slow the machine; `work-direct` with `held: true` is a direct
 * call that does. `requests()` lists what the server was asked (`<method> <taskId>`, from its
 * request log). `dispose()` releases what is still held and takes the server out again.
 */
export async function labWithHeldTasks(api: McpTasksApi): Promise<{ id: string; release(): void; requests(): string[]; dispose(): Promise<void> }> {
  const settings = () => vscode.workspace.getConfiguration('mcpTasks');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-lab-'));
  const spawnLog = path.join(dir, 'spawns');
  const requestLog = path.join(dir, 'requests');
  await settings().update('servers', { lab: { type: 'stdio', command: 'node', args: [TASK_LAB, 'stdio', '--spawn-log', spawnLog, '--request-log', requestLog] } }, vscode.ConfigurationTarget.Global);
  const id = await waitFor(() => api.getServers().find((s) => s.label === 'lab')?.id, 'the lab server');
  const release = () => process.kill(Number(fs.readFileSync(spawnLog, 'utf8').trim().split('\n').pop()!.split(' ')[0]), 'SIGUSR2');
  return {
    id,
    release,
    requests: () => (fs.existsSync(requestLog) ? fs.readFileSync(requestLog, 'utf8').split('\n').filter(Boolean) : []),
    dispose: async () => {
      // A task still held (the test failed before it let it go) would keep the removed server's process.
      try {
        release();
      } catch {
        // no process was started, or it has ended
      }
      await removeSettingServers();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
