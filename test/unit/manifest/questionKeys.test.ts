// A server's question form (quick input steps) has Decline and Cancel as title-bar buttons, which
// Tab never reaches: keys do the same while a form is on screen (context key mcpTasks.questionOpen),
// as the editor's Back button has Ctrl+Alt+-. Their commands are not in the palette: opening it
// hides the form (the key's context goes false), so from there they could only do nothing. The
// buttons' tooltips name the keys as bound.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../../../..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  contributes: {
    commands: Array<{ command: string; category?: string }>;
    keybindings?: Array<{ command: string; key: string; when?: string }>;
    menus: { commandPalette: Array<{ command: string; when?: string }> };
  };
};
const prompter = fs.readFileSync(path.join(root, 'src', 'vscode', 'elicitation', 'quickInputPrompter.ts'), 'utf8');

describe('the keys of a question form', () => {
  for (const [command, button] of [
    ['mcpTasks.declineQuestion', 'Decline: tell the server no'],
    ['mcpTasks.cancelQuestion', 'Cancel: dismiss without answering'],
  ]) {
    it(`${command} has a key only while a question form is open, named in the ${button.split(':')[0]} button's tooltip, and is not offered in the palette, which would hide the form`, () => {
      const binding = manifest.contributes.keybindings?.find((k) => k.command === command);
      assert.ok(binding, `no keybinding for ${command}`);
      assert.equal(binding.when, 'mcpTasks.questionOpen');
      assert.equal(manifest.contributes.commands.find((c) => c.command === command)?.category, 'MCP Tasks');
      assert.equal(manifest.contributes.menus.commandPalette.find((m) => m.command === command)?.when, 'never', 'hidden from the palette as the other row-only commands are');
      const label = binding.key.replace(/(^|\+)(\w)/g, (_, plus: string, c: string) => plus + c.toUpperCase());
      assert.match(label, /^Ctrl\+Alt\+\w$/);
      assert.ok(prompter.includes(`'${button} ({0})', questionKey('${label.slice(-1)}')`) && prompter.includes(`'⌃⌥' : 'Ctrl+Alt+') + key`), `the tooltip names ${label} (⌃⌥${label.slice(-1)} on macOS)`);
    });
  }

  it('the two keys differ, and neither is one the quick input uses (Back is Ctrl+Alt+- on Linux, Alt+Left on Windows, Ctrl+- on macOS)', () => {
    const keys = (manifest.contributes.keybindings ?? []).filter((k) => /Question$/.test(k.command)).map((k) => k.key);
    assert.equal(new Set(keys).size, 2);
    for (const k of keys) assert.ok(!['ctrl+alt+-', 'alt+left', 'ctrl+-', 'ctrl+space', 'escape', 'enter', 'tab'].includes(k), k);
  });
});
