// The `${input:ID}` prompts of mcp.json, in the editor's own input box.
import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import type { InputDef, ServerConfig } from '../../src/core/config/types';
import { InputPrompter } from '../../src/vscode/inputs';
import { QuickInputSpy, accept } from './quickInputs';

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
});
