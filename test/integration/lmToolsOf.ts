// The language-model tools as registerLmTools builds them over a service of a test's own, taken
// before they reach the editor (the extension has its own), to prepare and invoke them directly.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { TasksService } from '../../src/core/api/service';
import { registerLmTools } from '../../src/vscode/lmTools';

/** What prepareInvocation gives: the confirmation, when the user is asked. */
export type Prepared = { invocationMessage?: unknown; confirmationMessages?: { title: string; message: vscode.MarkdownString } } | undefined;

/** The tools over `service`, whose calls wait for `ready` (the first configuration load). */
export const toolsOf = (service: TasksService, ready = Promise.resolve()) => {
  const lm = vscode.lm as unknown as { registerTool: typeof vscode.lm.registerTool };
  const register = lm.registerTool;
  const tools = new Map<string, vscode.LanguageModelTool<unknown>>();
  lm.registerTool = (name, tool) => (tools.set(name, tool), new vscode.Disposable(() => undefined));
  try {
    registerLmTools(service, ready);
  } finally {
    lm.registerTool = register;
  }
  const token = new vscode.CancellationTokenSource().token;
  const tool = (name: string) => {
    const t = tools.get(name);
    assert.ok(t, `no tool ${name}`);
    return t;
  };
  return {
    prepare: async (name: string, input: object): Promise<Prepared> => (await tool(name).prepareInvocation!({ input } as vscode.LanguageModelToolInvocationPrepareOptions<unknown>, token)) as Prepared,
    invoke: (name: string, input: object) => Promise.resolve(tool(name).invoke({ input, toolInvocationToken: undefined }, token)),
  };
};
