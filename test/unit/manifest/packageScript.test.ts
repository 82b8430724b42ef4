// `npm run package` (which `npm start` and `npm run test:e2e` run first, in the user's terminal):
// vsce stops to ask "Do you want to continue? [y/N]" when the manifest has no `repository` field
// and its output is a terminal, and Enter there aborts the build. Piped (CI, `npm test`) it goes on
// by itself, so only a person at a terminal ever met the question.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { waitFor } from '../helpers/logger';

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

describe('packageExtension (scripts/editor/codeServer.mjs: npm start and npm run test:e2e package first)', () => {
  /** Whether a process still runs (a zombie, killed but not yet reaped, does not). */
  const runs = (pid: number): boolean => {
    try {
      return !/^\d+ \(.*\) Z/s.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };

  it('stopped by a signal sent to it alone (SIGTERM, as a CI timeout sends), the script stops what npm run package started: no build goes on without it', async function () {
    if (!fs.existsSync('/proc/self/stat')) return this.skip();
    this.timeout(20_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-package-'));
    const pidFile = path.join(dir, 'build.pid');
    // npm as the script sees it on PATH: a shell running a long build step, as `npm run package` runs esbuild, then vsce.
    const step = `require('fs').writeFileSync(process.argv[1], String(process.pid)); setTimeout(() => {}, 60000)`;
    fs.writeFileSync(path.join(dir, 'npm'), `#!/bin/sh\n"${process.execPath}" -e "${step}" '${pidFile}' && echo built\n`, { mode: 0o755 });
    const codeServer = pathToFileURL(path.join(root, 'scripts', 'editor', 'codeServer.mjs')).href;
    const script = `import { cleanupOnSignals, packageExtension } from ${JSON.stringify(codeServer)}; cleanupOnSignals(); await packageExtension();`;
    const driver = spawn(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, PATH: `${dir}${path.delimiter}${process.env.PATH}` }, stdio: 'ignore' });
    const exited = new Promise((resolve) => driver.once('exit', (code, signal) => resolve(code ?? signal)));
    let build = 0;
    try {
      await waitFor(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8') !== '', 'the build step to start', 10_000);
      build = Number(fs.readFileSync(pidFile, 'utf8'));
      driver.kill('SIGTERM');
      assert.equal(await exited, 143, 'it exits as cleanupOnSignals has it for SIGTERM');
      assert.equal(runs(build), false, `the build step (pid ${build}) still runs after the script ended`);
    } finally {
      driver.kill('SIGKILL');
      if (build && runs(build)) process.kill(build, 'SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
