// `npm run package` (which `npm start` and `npm run test:e2e` run first, in the user's terminal):
// vsce stops to ask "Do you want to continue? [y/N]" when the manifest has no `repository` field
// and its output is a terminal, and Enter there aborts the build. Piped (CI, `npm test`) it goes on
// by itself, so only a person at a terminal ever met the question.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../../../..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { repository?: unknown; scripts: Record<string, string> };

describe('npm run package', () => {
  it('packages without stopping to ask about a missing repository field (no answer a terminal must type)', () => {
    const vsce = /\bvsce package\b[^&|;]*/.exec(manifest.scripts.package)?.[0];
    assert.ok(vsce, `the package script runs vsce package: ${manifest.scripts.package}`);
    assert.ok(manifest.repository !== undefined || /\s--allow-missing-repository\b/.test(vsce), `without a repository field, vsce asks on a terminal (and Enter aborts): ${vsce}`);
  });

  it('is what `npm test` packages too (its package contents check runs vsce with the same options)', () => {
    const options = (args: string) => args.split(/[\s',[\]]+/).filter((a) => a.startsWith('--')).sort();
    const test = /'vsce', 'package',([^\]]*)\]/.exec(fs.readFileSync(path.join(root, 'scripts', 'test.mjs'), 'utf8'))?.[1];
    assert.ok(test, 'scripts/test.mjs runs vsce package');
    assert.deepEqual(options(test), options(/\bvsce package\b([^&|;]*)/.exec(manifest.scripts.package)![1]));
  });
});
