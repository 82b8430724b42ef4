import * as vscode from 'vscode';
import { inform } from './confirm';
import type { InputDef, ServerConfig } from '../core/config/types';
import { executeCommand, registerCommand } from './editorCommands';
import { isString } from '../core/util/json';
import { isArray } from '../core/util/builtins';
import { PICK_STRING, WORKSPACE_FOLDER } from '../core/config/types';
import { formatCount, inert, oneLine } from '../core/util/text';

/** Where the keys of saved password values are listed (secret storage cannot list its keys). */
const SAVED_KEYS = 'mcpTasks.savedInputKeys';

/**
 * Prompts shown, by secret key: servers of one file that use the same input share its one prompt.
 * Each is [its value, what closes it, how many servers wait for it]: it closes when the last one
 * no longer does (removed from the configuration).
 */
const asking = new Map<string, [Promise<string | undefined>, vscode.CancellationTokenSource, number]>();

/** The prompts for inputs up now: a quick input of ours hidden meanwhile was hidden by them, not by the user. */
export const inputPrompts = (): Promise<string | undefined>[] => [...asking.values()].map((a) => a[0]);

/**
 * The `${input:ID}` values of mcp.json: asked through quick input when a server first needs them,
 * then kept (as VS Code keeps them for its own MCP servers) in the editor's secret storage, until
 * the server refuses a password or the user runs Forget Saved Inputs. A `command` input runs its
 * command instead, each time, and is kept nowhere.
 */
export class InputPrompter {
  readonly #context: vscode.ExtensionContext;

  constructor(context: vscode.ExtensionContext) {
    this.#context = context;
  }

  /**
   * A value: the one saved, or else asked (typed or picked) and saved. Asked once for servers that
   * connect together: a second input box would close the first, as if the user had pressed Escape.
   */
  prompt(input: InputDef, server: ServerConfig, signal?: AbortSignal): Promise<string | undefined> {
    const key = secretKey(input, server);
    let a = asking.get(key);
    if (!a) {
      const close = new vscode.CancellationTokenSource();
      asking.set(key, (a = [this.#ask(input, server, close.token).finally(() => asking.get(key) === a && asking.delete(key)), close, 0]));
    }
    const p = a;
    p[2]++;
    // The last server that waited for it no longer does (removed) while it is up: it closes.
    signal?.addEventListener('abort', () => {
      if (!--p[2] && asking.get(key) === p) {
        asking.delete(key);
        p[1].cancel();
      }
    });
    return p[0];
  }

  async #ask(input: InputDef, server: ServerConfig, token?: vscode.CancellationToken): Promise<string | undefined> {
    // Run each time, kept nowhere; what it returns (maybe not a string) is checked by resolveServer.
    if (input.type === 'command') return (await executeCommand<string | undefined>(input.command, input.args)) ?? undefined;
    const saved = await this.saved(input, server);
    if (saved !== undefined) return saved;
    const title = vscode.l10n.t('MCP server "{0}"', server.label);
    let value: string | undefined;
    // The file's text (a cloned repository's mcp.json) shows as text: the prompt, labels and
    // descriptions draw icons and links (inert); a placeholder shows as sent, on one line.
    if (input.type === PICK_STRING) {
      const items = input.options.map((o) => ({ label: inert(o.label), description: o.label === o.value ? undefined : inert(o.value), value: o.value }));
      // The default comes first, where the cursor is.
      items.sort((a, b) => Number(b.value === input.default) - Number(a.value === input.default));
      value = (await vscode.window.showQuickPick(items, { title, placeHolder: oneLine(input.description), ignoreFocusOut: true }, token))?.value;
    } else {
      value = await vscode.window.showInputBox({ title, prompt: inert(input.description), value: input.default, password: input.password, ignoreFocusOut: true }, token);
    }
    if (value !== undefined) {
      const key = secretKey(input, server);
      await this.#context.secrets.store(key, value);
      await this.#track([...this.#keys(), key]);
    }
    return value;
  }

  /** The saved value, without asking; undefined if there is none (or a pick no longer offers it). A command input runs its command. */
  async saved(input: InputDef, server: ServerConfig): Promise<string | undefined> {
    if (input.type === 'command') return this.#ask(input, server);
    const value = await this.#context.secrets.get(secretKey(input, server));
    return input.type === PICK_STRING && !input.options.some((o) => o.value === value) ? undefined : value;
  }

  /** Forgets a saved value (the server refused the credentials it went into). */
  forget(input: InputDef, server: ServerConfig): void {
    const key = secretKey(input, server);
    void this.#context.secrets.delete(key).then(() => this.#track(this.#keys().filter((k) => k !== key)));
  }

  /** Forgets every saved value: those listed, and those the configuration uses. Returns how many there were. */
  async forgetAll(configured: readonly ServerConfig[]): Promise<number> {
    const keys = new Set(this.#keys());
    for (const server of configured) for (const input of server.inputs) keys.add(secretKey(input, server));
    let n = 0;
    for (const key of keys) {
      if ((await this.#context.secrets.get(key)) !== undefined) n++;
      await this.#context.secrets.delete(key);
    }
    await this.#track([]);
    return n;
  }

  /** Registers Forget Saved Inputs; `configured` lists the servers whose password inputs it forgets too. */
  registerForgetCommand(configured: () => ServerConfig[]): vscode.Disposable {
    return registerCommand('mcpTasks.forgetSavedInputs', async () => {
      const n = await this.forgetAll(configured());
      inform(
        n === 0
          ? vscode.l10n.t('No saved inputs to forget.')
          : n === 1
            ? vscode.l10n.t('Forgot 1 saved input; it is asked again when its server next connects.')
            : vscode.l10n.t('Forgot {0} saved inputs; they are asked again when their servers next connect.', formatCount(n)),
      );
    });
  }

  #keys(): string[] {
    const v = this.#context.globalState.get<unknown>(SAVED_KEYS);
    return isArray(v) ? v.filter((k): k is string => isString(k)) : [];
  }

  #track(keys: string[]): Thenable<void> {
    return this.#context.globalState.update(SAVED_KEYS, [...new Set(keys)]);
  }
}

/** One value per input of a source (settings, the user's mcp.json, or a folder's), as VS Code keeps them. */
const secretKey = (input: InputDef, server: ServerConfig): string => `mcpTasks.input:${server.source.kind === WORKSPACE_FOLDER ? server.source.folderPath : server.source.kind}:${input.id}`;
