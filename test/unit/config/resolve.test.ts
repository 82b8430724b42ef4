import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { parseMcpJson, parseSettingServers, resolveServer } from '../../../src/core/config';
import type { ConfigSource, InputDef, ResolveContext, ResolvedRemoteServer, ResolvedStdioServer, ServerConfig, StdioServerConfig } from '../../../src/core/config';

const APP: ConfigSource = { kind: 'workspaceFolder', folderName: 'app', folderPath: '/ws/app', file: '/ws/app/.vscode/mcp.json' };

/** Parses one server from an mcp.json document (which must be valid). */
function server(doc: unknown, source = APP): ServerConfig {
  const r = source.kind === 'settings' ? parseSettingServers((doc as { servers: unknown }).servers) : parseMcpJson(JSON.stringify(doc), source);
  assert.deepEqual(r.errors, []);
  return r.servers[0];
}

/** A context that records prompts and file reads. */
function context(over: Partial<ResolveContext> & { answers?: Record<string, string | undefined>; files?: Record<string, string> } = {}) {
  const prompted: string[] = [];
  const read: string[] = [];
  const ctx: ResolveContext = {
    // As the editor gives them: the folders by name, and their paths.
    folders: over.folders ?? {},
    folderPaths: Object.values(over.folders ?? {}),
    userHome: '/home/me',
    env: { HOME_DIR: '/home/me', TOKEN: 'from-env' },
    promptInput: async (input: InputDef) => {
      prompted.push(input.id);
      return over.answers ? over.answers[input.id] : `value-of-${input.id}`;
    },
    readFile: async (p: string) => {
      read.push(p);
      const text = over.files?.[p];
      if (text === undefined) throw new Error(`ENOENT: no such file or directory, open '${p}'`);
      return text;
    },
    ...over,
  };
  return { ctx, prompted, read };
}

async function ok(config: ServerConfig, ctx: ResolveContext) {
  const r = await resolveServer(config, ctx);
  assert.ok(r.ok, r.ok ? '' : r.message);
  return r.server;
}
async function fails(config: ServerConfig, ctx: ResolveContext) {
  const r = await resolveServer(config, ctx);
  assert.ok(!r.ok, 'expected resolution to fail');
  return r;
}

describe('config: resolveServer', () => {
  it('replaces the predefined variables everywhere they may appear', async () => {
    const s = server({
      servers: {
        a: {
          command: '${workspaceFolder}/bin/srv',
          args: ['--name=${workspaceFolderBasename}', '${userHome}${pathSeparator}x', 'a${/}b', '${env:TOKEN}', '[${env:NOT_SET}]', 'plain $HOME {x}'],
          env: { HOME_DIR: '${userHome}', N: 5 },
          cwd: '${workspaceFolder}/sub',
        },
      },
    });
    const { ctx } = context();
    const r = (await ok(s, ctx)) as ResolvedStdioServer;
    assert.equal(r.command, '/ws/app/bin/srv');
    assert.deepEqual(r.args, ['--name=app', `/home/me${path.sep}x`, `a${path.sep}b`, 'from-env', '[]', 'plain $HOME {x}']);
    assert.deepEqual(r.env, { HOME_DIR: '/home/me', N: '5' });
    assert.equal(r.cwd, '/ws/app/sub');
    assert.equal(r.id, 'folder:/ws/app:a');
    assert.ok(!('inputs' in r) && !('envFile' in r));
  });

  it('${workspaceFolder:name} and ${workspaceFolderBasename:name} name another folder of a multi-root workspace, from the settings too', async () => {
    const folders = { api: '/ws/api', 'web app': '/ws/web' };
    const s = server({ servers: { a: { command: 'node', args: ['${workspaceFolder:api}/srv.js', '${workspaceFolderBasename:web app}', '${workspaceFolder}'] } } });
    assert.deepEqual(((await ok(s, context({ folders }).ctx)) as ResolvedStdioServer).args, ['/ws/api/srv.js', 'web', '/ws/app']);
    const fromSettings = server({ servers: { b: { command: 'node', args: ['${workspaceFolder:api}/srv.js'] } } }, { kind: 'settings' });
    assert.deepEqual(((await ok(fromSettings, context({ folders }).ctx)) as ResolvedStdioServer).args, ['/ws/api/srv.js']);
    const r = await fails(server({ servers: { c: { command: 'node', args: ['${workspaceFolder:nope}'] } } }), context({ folders }).ctx);
    assert.equal(r.message, '"args[0]" uses "${workspaceFolder:nope}", but no workspace folder is named "nope".');
  });

  it('replaces variables in url and header values of remote servers', async () => {
    const s = server({
      inputs: [{ type: 'promptString', id: 'host' }],
      servers: { a: { type: 'http', url: 'https://${input:host}/mcp', headers: { 'X-Token': '${env:TOKEN}', 'X-Plain': 'v' } } },
    });
    const r = (await ok(s, context().ctx)) as ResolvedRemoteServer;
    assert.equal(r.url, 'https://value-of-host/mcp');
    assert.deepEqual(r.headers, { 'X-Token': 'from-env', 'X-Plain': 'v' });
  });

  it('checks the url once it is resolved', async () => {
    const s = server({ inputs: [{ type: 'promptString', id: 'u' }], servers: { a: { type: 'sse', url: '${input:u}' } } });
    const r = await fails(s, context({ answers: { u: 'ftp://h' } }).ctx);
    assert.equal(r.message, '"url" must start with http:// or https:// for a server of type "sse".');
  });

  it('prompts each input once, in order of first use, with its definition', async () => {
    const token: InputDef = { type: 'promptString', id: 'token', description: 'API token', password: true };
    const s = server({
      inputs: [{ ...token }, { type: 'promptString', id: 'user', description: 'User' }, { type: 'promptString', id: 'unused' }],
      servers: { a: { command: 'x', args: ['${input:user}', '${input:token}', '${input:user}'], env: { T: '${input:token}' } } },
    });
    const seen: InputDef[] = [];
    const { ctx, prompted } = context();
    const inner = ctx.promptInput;
    ctx.promptInput = (i) => (seen.push(i), inner(i));
    const r = (await ok(s, ctx)) as ResolvedStdioServer;
    assert.deepEqual(prompted, ['user', 'token']);
    assert.deepEqual(seen[1], token); // the password flag reaches the prompt
    assert.deepEqual(r.args, ['value-of-user', 'value-of-token', 'value-of-user']);
    assert.deepEqual(r.env, { T: 'value-of-token' });
    // A new resolution asks again: caching across resolutions is the caller's choice.
    await ok(s, ctx);
    assert.deepEqual(prompted, ['user', 'token', 'user', 'token']);
  });

  it('stops at a cancelled prompt and asks nothing more', async () => {
    const s = server({
      inputs: [
        { type: 'promptString', id: 'one' },
        { type: 'promptString', id: 'two' },
      ],
      servers: { a: { command: 'x', args: ['${input:one}', '${input:two}'] } },
    });
    const { ctx, prompted } = context({ answers: { one: undefined, two: 'b' } });
    const r = await fails(s, ctx);
    assert.equal(r.cancelled, true);
    assert.match(r.message, /^No value was given for input "one"\.$/);
    assert.deepEqual(prompted, ['one']);
  });

  describe('command inputs', () => {
    const doc = {
      inputs: [{ type: 'command', id: 'tok', command: 'ext.getToken', args: { scope: 'repo' } }],
      servers: { b: { command: 'node', env: { T: '${input:tok}' } } },
    };

    it('take the string the command returns, asked for again at each resolution', async () => {
      const s = server(doc);
      const seen: InputDef[] = [];
      const { ctx } = context();
      let n = 0;
      ctx.promptInput = async (i) => (seen.push(i), `token-${++n}`);
      assert.deepEqual(((await ok(s, ctx)) as ResolvedStdioServer).env, { T: 'token-1' });
      assert.deepEqual(seen[0], { type: 'command', id: 'tok', command: 'ext.getToken', args: { scope: 'repo' } });
      assert.deepEqual(((await ok(s, ctx)) as ResolvedStdioServer).env, { T: 'token-2' });
    });

    it('treat undefined or null as the user cancelling, as VS Code does', async () => {
      for (const none of [undefined, null]) {
        const { ctx } = context();
        ctx.promptInput = async () => none as unknown as string;
        const r = await fails(server(doc), ctx);
        assert.equal(r.cancelled, true);
        assert.equal(r.message, 'No value was given for input "tok" from command "ext.getToken".');
      }
    });

    it('fail naming the server, the input and the command when it returns another type or throws', async () => {
      const { ctx } = context();
      ctx.promptInput = async () => 42 as unknown as string;
      let r = await fails(server(doc), ctx);
      assert.equal(r.cancelled, undefined);
      assert.equal(r.message, 'could not get input "tok" from command "ext.getToken": it returned number, not a string.');
      ctx.promptInput = async () => {
        throw new Error("command 'ext.getToken' not found");
      };
      r = await fails(server(doc), ctx);
      assert.equal(r.message, `could not get input "tok" from command "ext.getToken": command 'ext.getToken' not found.`);
      // An error that says nothing is told as such, not as nothing after a colon.
      ctx.promptInput = async () => {
        throw new Error('');
      };
      r = await fails(server(doc), ctx);
      assert.equal(r.message, 'could not get input "tok" from command "ext.getToken": it failed without saying why.');
    });
  });

  it('accepts an empty answer (not the same as cancelling)', async () => {
    const s = server({ inputs: [{ type: 'promptString', id: 'k' }], servers: { a: { command: 'x', args: ['[${input:k}]'] } } });
    const r = (await ok(s, context({ answers: { k: '' } }).ctx)) as ResolvedStdioServer;
    assert.deepEqual(r.args, ['[]']);
  });

  it('turns a failing prompt into an error', async () => {
    const s = server({ inputs: [{ type: 'promptString', id: 'k' }], servers: { a: { command: 'x', args: ['${input:k}'] } } });
    const r = await fails(s, context({ promptInput: () => Promise.reject(new Error('no window')) }).ctx);
    assert.equal(r.message, 'could not ask for input "k": no window.');
  });

  it('names an unknown variable before prompting for anything', async () => {
    // Parsing leaves such a server out; resolving checks again.
    const parsed = parseMcpJson(JSON.stringify({ inputs: [{ type: 'promptString', id: 'k' }], servers: { a: { command: 'x', args: ['${input:k}'] } } }), APP).servers[0] as StdioServerConfig;
    const s = { ...parsed, env: { A: '${command:pick}' } };
    const { ctx, prompted } = context();
    const r = await fails(s, ctx);
    assert.equal(r.message, '"env.A" uses the unknown variable "${command:pick}".');
    assert.deepEqual(prompted, []);
  });

  it('names an input id that the source does not define', async () => {
    const s = { ...(parseMcpJson(JSON.stringify({ servers: { a: { command: 'x' } } }), APP).servers[0] as StdioServerConfig), args: ['${input:missing}'] };
    const r = await fails(s, context().ctx);
    assert.equal(r.message, '"args[0]" uses "${input:missing}", but no input "missing" is defined.');
  });

  it('merges the env file under env: explicit env wins, null removes', async () => {
    const s = server({
      servers: { a: { command: 'x', envFile: '${workspaceFolder}/.env', env: { B: 'explicit', C: null, D: null } } },
    });
    const files = { '/ws/app/.env': '# secrets\nA=1\nexport B="from file"\nC=3\n' };
    const { ctx, read } = context({ files });
    const r = (await ok(s, ctx)) as ResolvedStdioServer;
    assert.deepEqual(read, ['/ws/app/.env']);
    assert.deepEqual(r.env, { A: '1', B: 'explicit' });
    assert.deepEqual(r.unsetEnv, ['C', 'D']);
  });

  it('reads a relative env file from the workspace folder, and reports one it cannot read', async () => {
    const s = server({ servers: { a: { command: 'x', envFile: 'config/.env' } } });
    const { ctx, read } = context({ files: { '/ws/app/config/.env': 'K=v' } });
    assert.deepEqual(((await ok(s, ctx)) as ResolvedStdioServer).env, { K: 'v' });
    assert.deepEqual(read, ['/ws/app/config/.env']);

    const missing = server({ servers: { a: { command: 'x', envFile: '/nope/.env' } } });
    const r = await fails(missing, context().ctx);
    assert.equal(r.message, `could not read "envFile" /nope/.env: ENOENT: no such file or directory, open '/nope/.env'.`);
  });

  it('says an env file that does not exist does not, and what to do, not the file system\'s words (the editor\'s FileNotFound, or Node\'s ENOENT)', async () => {
    const missing = server({ servers: { a: { command: 'x', envFile: '/nope/.env' } } });
    for (const code of ['FileNotFound', 'ENOENT']) {
      const readFile = () => Promise.reject(Object.assign(new Error("Error: ENOENT: no such file or directory, open '/nope/.env'"), { code }));
      const r = await fails(missing, { ...context().ctx, readFile });
      assert.equal(r.message, '"envFile" /nope/.env does not exist: create it, or correct the path.', code);
    }
  });

  it('makes cwd absolute against the workspace folder and defaults to it', async () => {
    const rel = server({ servers: { a: { command: 'x', cwd: 'tools/../srv' } } });
    assert.equal(((await ok(rel, context().ctx)) as ResolvedStdioServer).cwd, '/ws/app/srv');
    const abs = server({ servers: { a: { command: 'x', cwd: '/opt/srv' } } });
    assert.equal(((await ok(abs, context().ctx)) as ResolvedStdioServer).cwd, '/opt/srv');
    const none = server({ servers: { a: { command: 'x' } } });
    assert.equal(((await ok(none, context().ctx)) as ResolvedStdioServer).cwd, '/ws/app');
  });

  it('gives settings servers no default cwd and refuses folder variables without a folder', async () => {
    const settings = { kind: 'settings' } as const;
    const plain = server({ servers: { a: { command: 'node', env: { P: '${pathSeparator}' } } } }, settings);
    const r = (await ok(plain, context().ctx)) as ResolvedStdioServer;
    assert.equal(r.cwd, undefined);
    assert.equal(r.label, 'a');

    const usesFolder = server({ servers: { a: { command: '${workspaceFolder}/x' } } }, settings);
    const e = await fails(usesFolder, context().ctx);
    assert.equal(e.message, '"command" uses "${workspaceFolder}", but there is no workspace folder to take it from.');
    // With a folder in the workspace, the same server resolves.
    assert.equal(((await ok(usesFolder, context({ folderPaths: ['/ws/first'] }).ctx)) as ResolvedStdioServer).command, '/ws/first/x');

    const relCwd = server({ servers: { a: { command: 'x', cwd: 'sub' } } }, settings);
    assert.match((await fails(relCwd, context().ctx)).message, /"cwd" is the relative path "sub", but there is no workspace folder/);
  });

  it('a server of the settings takes the workspace\'s only folder for ${workspaceFolder}, as VS Code does; with several folders it must name one', async () => {
    const settings = { kind: 'settings' } as const;
    const usesFolder = server({ servers: { a: { command: '${workspaceFolder}/x', cwd: 'sub' } } }, settings);
    const r = (await ok(usesFolder, context({ folders: { app: '/ws/app' } }).ctx)) as ResolvedStdioServer;
    assert.deepEqual([r.command, r.cwd], ['/ws/app/x', path.join('/ws/app', 'sub')]);
    const e = await fails(usesFolder, context({ folders: { app: '/ws/app', api: '/ws/api' } }).ctx);
    assert.equal(e.message, '"command" uses "${workspaceFolder}", but the workspace has 2 folders: name one, as in "${workspaceFolder:app}".');
    // Two folders may share a name: the list of folders, not their names, says how many there are.
    const twins = await fails(usesFolder, context({ folders: { app: '/b/app' }, folderPaths: ['/a/app', '/b/app'] }).ctx);
    assert.match(twins.message, /but the workspace has 2 folders: name one/);
  });

  it('rejects a command that is empty once resolved', async () => {
    const s = server({ servers: { a: { command: '${env:NOT_SET}' } } });
    assert.equal((await fails(s, context().ctx)).message, '"command" is empty once its variables are replaced.');
  });
});
