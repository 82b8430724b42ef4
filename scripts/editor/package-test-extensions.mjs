#!/usr/bin/env node
// Packages the test extensions under test/fixtures/extensions/ (each a folder with a package.json;
// plain JS, no build) into .vscode-test/test-extensions/<name>.vsix with vsce, for installation
// into code-server before in-editor runs (`code-server --install-extension <vsix>`). A .vsix newer
// than every file of its folder is reused.
//
//   import { packageTestExtensions } from './package-test-extensions.mjs';
//   for (const { id, vsix } of await packageTestExtensions()) ...install vsix...
//
// Run directly, it prints one `<id> <vsix>` line per extension.
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const sourcesDir = join(repoRoot, 'test', 'fixtures', 'extensions');
const defaultOutDir = join(repoRoot, '.vscode-test', 'test-extensions');

/** Newest modification time of the files in `dir`. */
function newest(dir) {
  let t = 0;
  for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' })) t = Math.max(t, statSync(join(dir, f)).mtimeMs);
  return t;
}

/**
 * Packages every test extension (or those named in `only`) and returns `{ id, vsix }` for each,
 * `id` being `publisher.name` as `vscode.extensions.getExtension` knows it.
 * @param {{ outDir?: string, only?: string[] }} [options]
 * @returns {Promise<Array<{ id: string, vsix: string }>>}
 */
export async function packageTestExtensions({ outDir = defaultOutDir, only } = {}) {
  // vsce is CommonJS; load it only when something must be packaged.
  const { createVSIX } = createRequire(import.meta.url)('@vscode/vsce');
  mkdirSync(outDir, { recursive: true });
  const out = [];
  for (const name of readdirSync(sourcesDir).sort()) {
    const dir = join(sourcesDir, name);
    if (only && !only.includes(name)) continue;
    if (!existsSync(join(dir, 'package.json'))) continue;
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const vsix = join(outDir, `${manifest.name}-${manifest.version}.vsix`);
    if (!existsSync(vsix) || statSync(vsix).mtimeMs < newest(dir)) {
      // Test fixtures: no repository, no LICENSE file, no dependencies.
      await createVSIX({ cwd: dir, packagePath: vsix, dependencies: false, allowMissingRepository: true, skipLicense: true });
    }
    out.push({ id: `${manifest.publisher}.${manifest.name}`, vsix });
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  packageTestExtensions({ only: process.argv.slice(2).length ? process.argv.slice(2) : undefined }).then(
    (list) => list.forEach(({ id, vsix }) => console.log(`${id} ${vsix}`)),
    (e) => {
      console.error(`[package-test-extensions] ${e instanceof Error ? e.message : e}`);
      process.exit(1);
    },
  );
}
