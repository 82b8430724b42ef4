// What the extension tells users to run: a command named in its messages ("MCP Tasks: …") is
// named as the Command Palette shows it (its category and title, "..." included), so that typing
// it finds it.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../../../..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { contributes: { commands: Array<{ title: string; category?: string }> } };

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

describe('commands named in messages', () => {
  it('are named as the palette shows them', () => {
    const titles = new Set(manifest.contributes.commands.map((c) => `${c.category}: ${c.title}`));
    const named = sources(path.join(root, 'src')).flatMap((file) =>
      [...fs.readFileSync(file, 'utf8').matchAll(/"(MCP Tasks: [^"]+)"/g)].map((m) => ({ file: path.relative(root, file), name: m[1] })),
    );
    assert.ok(named.length > 0, 'the messages name at least one command (the sampling consent does)');
    assert.deepEqual(named.filter((n) => !titles.has(n.name)), []);
  });
});
