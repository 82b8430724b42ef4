import * as vscode from 'vscode';
import type { InputDef, ServerConfig } from '../core/config/types';

/** Where the keys of saved password values are listed (secret storage cannot list its keys). */
const SAVED_KEYS = 'mcpTasks.savedInputKeys';

/**
 * The `${input:ID}` values of mcp.json: asked through quick input when a server starts; password
 * values are kept in the editor's secret storage, until the server refuses them or the user
 * runs Forget Saved Inputs.
 */
export class InputPrompter {
  constructor(private readonly context: vscode.ExtensionContext) {}

  /** Asks for a value: typed (a password is asked once, then read from secret storage) or picked. */
  async prompt(input: InputDef, server: ServerConfig): Promise<string | undefined> {
    const title = vscode.l10n.t('MCP server "{0}"', server.label);
    if (input.type === 'pickString') {
      const items = input.options.map((o) => ({ label: o.label, description: o.label === o.value ? undefined : o.value, value: o.value }));
      // The default comes first, where the cursor is.
      items.sort((a, b) => Number(b.value === input.default) - Number(a.value === input.default));
      const picked = await vscode.window.showQuickPick(items, { title, placeHolder: input.description, ignoreFocusOut: true });
      return picked?.value;
    }
    const key = secretKey(input, server);
    if (input.password) {
      const saved = await this.context.secrets.get(key);
      if (saved !== undefined) return saved;
    }
    const value = await vscode.window.showInputBox({ title, prompt: input.description, value: input.default, password: input.password, ignoreFocusOut: true });
    if (value !== undefined && input.password) {
      await this.context.secrets.store(key, value);
      await this.#track([...this.#keys(), key]);
    }
    return value;
  }

  /** A value without asking: a saved password; undefined for anything that must be asked. */
  async saved(input: InputDef, server: ServerConfig): Promise<string | undefined> {
    return input.type === 'promptString' && input.password ? this.context.secrets.get(secretKey(input, server)) : undefined;
  }

  /** Forgets a saved password value (the server refused it). */
  forget(input: InputDef, server: ServerConfig): void {
    const key = secretKey(input, server);
    void this.context.secrets.delete(key).then(() => this.#track(this.#keys().filter((k) => k !== key)));
  }

  /** Forgets every saved password value: those listed, and those the configuration uses. Returns how many were listed or used. */
  async forgetAll(configured: readonly ServerConfig[]): Promise<number> {
    const keys = new Set(this.#keys());
    for (const server of configured) for (const input of server.inputs) if (input.type === 'promptString' && input.password) keys.add(secretKey(input, server));
    let n = 0;
    for (const key of keys) {
      if ((await this.context.secrets.get(key)) !== undefined) n++;
      await this.context.secrets.delete(key);
    }
    await this.#track([]);
    return n;
  }

  /** Registers Forget Saved Inputs; `configured` lists the servers whose password inputs it forgets too. */
  registerForgetCommand(configured: () => ServerConfig[]): vscode.Disposable {
    return vscode.commands.registerCommand('mcpTasks.forgetSavedInputs', async () => {
      const n = await this.forgetAll(configured());
      void vscode.window.showInformationMessage(
        n === 0
          ? vscode.l10n.t('No saved inputs to forget.')
          : n === 1
            ? vscode.l10n.t('Forgot 1 saved input; it is asked again when its server next connects.')
            : vscode.l10n.t('Forgot {0} saved inputs; they are asked again when their servers next connect.', n),
      );
    });
  }

  #keys(): string[] {
    const v = this.context.globalState.get<unknown>(SAVED_KEYS);
    return Array.isArray(v) ? v.filter((k): k is string => typeof k === 'string') : [];
  }

  #track(keys: string[]): Thenable<void> {
    return this.context.globalState.update(SAVED_KEYS, [...new Set(keys)]);
  }
}

/** One value per input of a source (settings, or a folder's mcp.json), as VS Code keeps them. */
function secretKey(input: InputDef, server: ServerConfig): string {
  return `mcpTasks.input:${server.source.kind === 'settings' ? 'settings' : server.source.folderPath}:${input.id}`;
}
