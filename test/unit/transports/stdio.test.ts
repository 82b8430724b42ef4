import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { StdioTransport, childEnvironment } from '../../../src/core/transports/stdio';
import { TransportParseError } from '../../../src/core/transports/transport';
import type { TransportCloseInfo } from '../../../src/core/transports/transport';
import { MemoryLogger, waitFor } from '../helpers/logger';
import { alive } from '../helpers/process';

const fixture = path.resolve(__dirname, '../../../../test/fixtures/servers/stdio-misbehave.mjs');

describe('StdioTransport', function () {
  this.timeout(15000);

  it('sends and receives newline-delimited JSON; a non-JSON line is reported and skipped', async () => {
    const t = new StdioTransport({ command: process.execPath, args: [fixture, 'echo'], logger: new MemoryLogger() });
    const messages: unknown[] = [];
    const errors: Error[] = [];
    t.onmessage = (m) => messages.push(m);
    t.onerror = (e) => errors.push(e);
    await t.start();
    await t.send({ jsonrpc: '2.0', id: 1, method: 'x', params: { s: 'é€' } });
    await waitFor(() => messages.length === 1, 'echo');
    assert.deepEqual(messages[0], { jsonrpc: '2.0', id: 1, result: { echo: { s: 'é€' } } });
    assert.ok(errors[0] instanceof TransportParseError && errors[0].text === 'this is not json');
    await t.close();
  });

  it('a batch on stdout is delivered as its messages; a character split across two stderr writes stays whole', async () => {
    const script = [
      "process.stdout.write(JSON.stringify([{ jsonrpc: '2.0', method: 'a' }, { jsonrpc: '2.0', method: 'b' }]) + '\\n');",
      "process.stderr.write(Buffer.from([0x74, 0x65, 0x6d, 0x70, 0xc3]));",
      "setTimeout(() => process.stderr.write(Buffer.from([0xa9, 0x0a])), 50);",
      'setInterval(() => {}, 1000);',
    ].join('\n');
    const log = new MemoryLogger();
    const t = new StdioTransport({ command: process.execPath, args: ['-e', script], logger: log });
    const messages: unknown[] = [];
    t.onmessage = (m) => messages.push(m);
    await t.start();
    await waitFor(() => messages.length === 2 && log.has('info', /^stderr: /), 'the batch and the stderr line');
    assert.deepEqual(messages, [{ jsonrpc: '2.0', method: 'a' }, { jsonrpc: '2.0', method: 'b' }]);
    assert.ok(log.has('info', /^stderr: tempé$/), log.text());
    await t.close();
  });

  it('a byte order mark before a line (.NET and Windows PowerShell write one first when told to write UTF-8) is ignored, as RFC 8259 lets a JSON parser do: the answer to initialize is not lost', async () => {
    const script = "process.stdout.write(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }) + '\\n')])); setInterval(() => {}, 1000);";
    const t = new StdioTransport({ command: process.execPath, args: ['-e', script], logger: new MemoryLogger() });
    const got: unknown[] = [];
    t.onmessage = (m) => got.push(m);
    t.onerror = (e) => got.push(e.message);
    try {
      await t.start();
      await waitFor(() => got.length > 0, 'the line');
      assert.deepEqual(got, [{ jsonrpc: '2.0', id: 1, result: {} }]);
    } finally {
      await t.close(); // the server runs until closed, failed or not
    }
  });

  it('reports the exit code and the last stderr lines when the process dies', async () => {
    const log = new MemoryLogger();
    const t = new StdioTransport({ command: process.execPath, args: [fixture, 'exit'], logger: log });
    let info: TransportCloseInfo | undefined;
    t.onclose = (i) => (info = i);
    await t.start();
    await waitFor(() => info !== undefined, 'close');
    assert.equal(info!.code, 3);
    assert.equal(info!.reason, 'Server process exited with code 3 (its last error: "fatal: could not open database")');
    assert.ok(log.has('info', /stderr: fatal: could not open database/));
    await assert.rejects(t.send({}), /not running/);
  });

  it('a process that ends with an error names its last line that reads like one ("Error: …", "ModuleNotFoundError: …"), not the end of its stack trace; all of stderr is in the log', async () => {
    const ended = async (command: string, args: string[]) => {
      const log = new MemoryLogger();
      const t = new StdioTransport({ command, args, logger: log });
      let info: TransportCloseInfo | undefined;
      t.onclose = (i) => (info = i);
      await t.start();
      await waitFor(() => info !== undefined, 'close');
      return { reason: info!.reason, log };
    };
    // Node's stack, its error's properties and its version follow the line that says what went wrong.
    const missing = path.join(tmpdir(), 'mcp-tasks-no-such-dir', 'server.js');
    const node = await ended(process.execPath, [missing]);
    assert.equal(node.reason, `Server process exited with code 1 (its last error: "Error: Cannot find module '${missing}'")`);
    assert.ok(node.log.has('info', /^stderr: +code: 'MODULE_NOT_FOUND',$/) && node.log.has('info', /^stderr: Node\.js v/), node.log.text());
    // Python's traceback: the exception comes last, after its frames.
    if (spawnSync('python3', ['--version']).status === 0) {
      const py = await ended('python3', ['-c', 'def main():\n  import mcp_tasks_no_such_module\nmain()']);
      assert.equal(py.reason, `Server process exited with code 1 (its last error: "ModuleNotFoundError: No module named 'mcp_tasks_no_such_module'")`);
      assert.ok(py.log.has('info', /^stderr: Traceback \(most recent call last\):$/), py.log.text());
    }
    // Nothing that reads like an error: its last lines, as they are.
    assert.equal((await ended('sh', ['-c', 'echo starting >&2; echo x >&2; exit 3'])).reason, 'Server process exited with code 3 (its last output: "starting | x")');
    // Node out of memory: its native stack follows "FATAL ERROR: …" (two words before the colon).
    const oom = "printf '<--- JS stacktrace --->\\nFATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\\n----- Native stack trace -----\\n 1: 0xb78db3 node::OOMErrorHandler [node]\\n 2: 0x10fb205  [node]\\n 3: 0x1113088 v8::internal::Heap::CollectGarbage [node]\\n 4: 0x12a52a3  [node]\\n 5: 0x195e476  [node]\\n' >&2; exit 134";
    assert.equal((await ended('sh', ['-c', oom])).reason, 'Server process exited with code 134 (its last error: "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory")');
  });

  it('a process that colours its stderr (ANSI CSI and OSC sequences) ends with its error in plain words; the log has them without the codes too', async () => {
    const log = new MemoryLogger();
    const script = "process.stderr.write('\\x1b]0;server\\x07\\x1b[1;31mError:\\x1b[0m port \\x1b[33m8080\\x1b[39m in use\\n'); process.exit(2);";
    const t = new StdioTransport({ command: process.execPath, args: ['-e', script], logger: log });
    let info: TransportCloseInfo | undefined;
    t.onclose = (i) => (info = i);
    await t.start();
    await waitFor(() => info !== undefined, 'close');
    assert.equal(info!.reason, 'Server process exited with code 2 (its last error: "Error: port 8080 in use")');
    assert.deepEqual(info!.stderr, ['Error: port 8080 in use']);
    assert.ok(log.has('info', /^stderr: Error: port 8080 in use$/), log.text());
    // A shell's `tput sgr0` resets with ESC ( B (a character set, an escape of its own) before ESC [ m.
    const reset = new StdioTransport({ command: 'sh', args: ['-c', "printf '\\033[31mError\\033(B\\033[m: port 8080 in use \\0337x\\0338\\n' >&2; exit 2"], logger: new MemoryLogger() });
    let after: TransportCloseInfo | undefined;
    reset.onclose = (i) => (after = i);
    await reset.start();
    await waitFor(() => after !== undefined, 'close');
    assert.equal(after!.reason, 'Server process exited with code 2 (its last error: "Error: port 8080 in use x")');
  });

  it('a process killed by a signal says the signal; what it wrote last is labelled as its last output, not given as the cause', async () => {
    const log = new MemoryLogger();
    const script = `console.error('[evil] started'); console.log(JSON.stringify({ jsonrpc: '2.0', method: 'pid', params: { pid: process.pid } })); setInterval(() => {}, 1000)`;
    const t = new StdioTransport({ command: process.execPath, args: ['-e', script], logger: log });
    let pid: number | undefined;
    let info: TransportCloseInfo | undefined;
    t.onmessage = (m) => (pid = (m as { params: { pid: number } }).params.pid);
    t.onclose = (i) => (info = i);
    await t.start();
    await waitFor(() => pid !== undefined && log.has('info', /stderr: \[evil\] started/), 'the pid and the stderr line');
    process.kill(pid!, 'SIGKILL');
    await waitFor(() => info !== undefined, 'close');
    assert.equal(info!.reason, 'Server process was killed by SIGKILL (its last output: "[evil] started")');
  });

  it('a missing command fails start() with a message that says what to check', async () => {
    const t = new StdioTransport({ command: 'definitely-not-a-command-xyz', logger: new MemoryLogger() });
    await assert.rejects(t.start(), /command not found\. Check "command" in the server's configuration/);
  });

  it('a command that is not executable (a script without +x, a folder) fails start() saying what to do', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mcp-stdio-'));
    try {
      const script = path.join(dir, 'server.js');
      writeFileSync(script, 'console.log(1)\n', { mode: 0o644 });
      for (const command of [script, dir]) {
        const t = new StdioTransport({ command, logger: new MemoryLogger() });
        await assert.rejects(t.start(), /is not an executable file\. Make it one \(chmod \+x\), or run it through its interpreter/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('passes env and cwd to the process', async () => {
    const t = new StdioTransport({
      command: process.execPath,
      args: ['-e', 'process.stdout.write(JSON.stringify({v: process.env.MCP_T, cwd: process.cwd()}) + "\\n")'],
      env: { MCP_T: 'yes' },
      cwd: path.dirname(fixture),
      logger: new MemoryLogger(),
    });
    const messages: Array<{ v: string; cwd: string }> = [];
    t.onmessage = (m) => messages.push(m as { v: string; cwd: string });
    await t.start();
    await waitFor(() => messages.length === 1, 'output');
    assert.deepEqual(messages[0], { v: 'yes', cwd: path.dirname(fixture) });
    await t.close();
  });

  it('the environment: env over the editor\'s, unsetEnv taken out; on Windows whatever the case of the names (Path and PATH were both passed on, and the child got the editor\'s)', () => {
    const base = { Path: 'C:\\Windows', HOME: 'h', Secret: 's', keep: 'k' };
    assert.deepEqual(childEnvironment(base, { PATH: 'C:\\tools', NEW: 'n' }, ['SECRET'], true), { HOME: 'h', keep: 'k', PATH: 'C:\\tools', NEW: 'n' });
    // Elsewhere names are case-sensitive: Path and PATH are two variables.
    assert.deepEqual(childEnvironment(base, { PATH: '/tools' }, ['SECRET', 'keep'], false), { Path: 'C:\\Windows', HOME: 'h', Secret: 's', PATH: '/tools' });
  });

  it('on Windows, a command that is no .exe (here one not found) runs through ComSpec with an escaped line, never shell: true', async function () {
    if (process.platform === 'win32') this.skip(); // here a stand-in for cmd.exe prints what it is given
    const dir = mkdtempSync(path.join(tmpdir(), 'mcp-stdio-'));
    const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
    try {
      const comspec = path.join(dir, 'cmd');
      writeFileSync(comspec, '#!/bin/sh\nprintf "%s\\n" "$@" >&2\nexit 3\n', { mode: 0o755 });
      const t = new StdioTransport({
        command: 'no-such-server',
        args: ['C:\\Users\\John Smith', 'a&b'],
        env: { ComSpec: comspec, PATH: '' },
        cwd: dir,
        logger: new MemoryLogger(),
      });
      let info: TransportCloseInfo | undefined;
      t.onclose = (i) => (info = i);
      Object.defineProperty(process, 'platform', { ...platform, value: 'win32' });
      try {
        await t.start();
      } finally {
        Object.defineProperty(process, 'platform', platform);
      }
      await waitFor(() => info !== undefined, 'close');
      assert.deepEqual(info!.stderr, ['/d', '/v:off', '/s', '/c', '""no-such-server" ^"C:\\Users\\John^ Smith^" ^"a^&b^""']);
    } finally {
      Object.defineProperty(process, 'platform', platform);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('close() ends the whole process tree, even a server that ignores stdin and SIGTERM', async function () {
    if (process.platform === 'win32') this.skip();
    const t = new StdioTransport({ command: process.execPath, args: [fixture, 'tree'], logger: new MemoryLogger() });
    let pids: { parent: number; child: number } | undefined;
    t.onmessage = (m) => (pids = (m as { params: { parent: number; child: number } }).params);
    const closes: TransportCloseInfo[] = [];
    t.onclose = (i) => closes.push(i);
    await t.start();
    await waitFor(() => pids !== undefined, 'pids');
    assert.ok(alive(pids!.parent) && alive(pids!.child));
    await t.close();
    await waitFor(() => !alive(pids!.parent) && !alive(pids!.child), 'the tree to end', 5000);
    await t.close(); // idempotent
    assert.equal(closes.length, 1);
  });

  for (const how of ['close', 'crash'] as const) {
    it(`ends the process group once its leader exits ${how === 'close' ? 'on close()' : 'on its own'}, with SIGKILL for what ignores SIGTERM`, async function () {
      if (process.platform === 'win32') this.skip();
      const t = new StdioTransport({ command: process.execPath, args: [fixture, 'orphan'], logger: new MemoryLogger() });
      let pids: { parent: number; child: number } | undefined;
      t.onmessage = (m) => (pids = (m as { params: { parent: number; child: number } }).params);
      const closes: TransportCloseInfo[] = [];
      t.onclose = (i) => closes.push(i);
      await t.start();
      try {
        await waitFor(() => pids !== undefined, 'pids');
        if (how === 'close') {
          await t.close();
        } else {
          await t.send({ jsonrpc: '2.0', method: 'crash' });
          await waitFor(() => closes.length > 0, 'the leader to crash');
          assert.equal(closes[0].code, 3);
        }
        await waitFor(() => !alive(pids!.child), 'the grandchild to end', 8000);
      } finally {
        if (pids && alive(pids.child)) process.kill(pids.child, 'SIGKILL');
        await t.close();
      }
    });
  }
});
