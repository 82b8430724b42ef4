import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { combineConfigs, keepLastReadable, parseMcpJson, parseSettingServers } from '../../../src/core/config';
import type { ConfigSource, ParseResult, RemoteServerConfig, StdioServerConfig } from '../../../src/core/config';
import { keyPosition, newProblems } from '../../../src/core/config/parse';
import { placeOfId, serverId, serverNameOfId, sourcePlace } from '../../../src/core/config/types';

const folder = (name: string, folderPath = `/ws/${name}`): ConfigSource => ({
  kind: 'workspaceFolder',
  folderName: name,
  folderPath,
  file: `${folderPath}/.vscode/mcp.json`,
});
const APP = folder('app');
const file = (doc: unknown) => parseMcpJson(JSON.stringify(doc, null, 2), APP);
const only = (r: ParseResult) => {
  assert.deepEqual(r.errors, []);
  assert.equal(r.servers.length, 1);
  return r.servers[0];
};
const messages = (r: ParseResult) => r.errors.map((e) => e.message);

describe('config: parseMcpJson', () => {
  it('reads stdio and http servers with every field', () => {
    const r = file({
      servers: {
        db: { type: 'stdio', command: 'node', args: ['db.js', '--port', '1'], env: { A: 'x', N: 3, GONE: null }, envFile: '.env', cwd: 'srv' },
        api: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer t' } },
        old: { type: 'sse', url: 'http://127.0.0.1:9/sse' },
      },
    });
    assert.deepEqual(r.errors, []);
    const [db, api, old] = r.servers as [StdioServerConfig, RemoteServerConfig, RemoteServerConfig];
    assert.deepEqual(
      { ...db },
      {
        id: 'folder:/ws/app:db',
        name: 'db',
        label: 'db',
        source: APP,
        inputs: [],
        type: 'stdio',
        command: 'node',
        args: ['db.js', '--port', '1'],
        env: { A: 'x', N: '3', GONE: null }, // numbers as strings, null kept (unset)
        envFile: '.env',
        cwd: 'srv',
      },
    );
    assert.equal(api.type, 'http');
    assert.equal(api.url, 'https://example.com/mcp');
    assert.deepEqual(api.headers, { Authorization: 'Bearer t' });
    assert.equal(old.type, 'sse');
    assert.deepEqual(old.headers, {});
  });

  it('a file with "mcpServers" (other clients) or "mcp" (the old settings) instead of "servers" is reported, not silently empty', () => {
    const r = parseMcpJson('{\n  "mcpServers": { "db": { "command": "node" } }\n}', APP);
    assert.deepEqual(r.servers, []);
    assert.equal(r.errors.length, 1);
    assert.equal(r.errors[0].message, '.vscode/mcp.json (folder "app"): VS Code reads servers from a top-level "servers" object, not from "mcpServers": move them there.');
    assert.deepEqual([r.errors[0].line, r.errors[0].column], [2, 17]); // its value, as other errors of the file
    assert.match(messages(file({ mcp: { servers: { db: { command: 'node' } } } }))[0], /not from "mcp": move them there/);
    assert.deepEqual(file({ inputs: [] }).errors, [], 'a file without servers at all is fine');
  });

  it('infers the type: command means stdio, url means http', () => {
    const r = file({ servers: { a: { command: 'x' }, b: { url: 'https://h/mcp' } } });
    assert.deepEqual(r.errors, []);
    assert.deepEqual(
      r.servers.map((s) => s.type),
      ['stdio', 'http'],
    );
    const a = r.servers[0] as StdioServerConfig;
    assert.deepEqual(a.args, []);
    assert.deepEqual(a.env, {});
  });

  it('ignores keys VS Code allows that MCP Tasks does not use', () => {
    const s = only(file({ servers: { a: { command: 'x', dev: { watch: '**/*.js' }, gallery: true, version: '1.0.0' } } }));
    assert.equal(s.type, 'stdio');
  });

  it('accepts comments and trailing commas (JSONC)', () => {
    const text = `// top comment
{
  /* block */
  "servers": {
    "a": { "command": "node", "args": ["x.js",], }, // trailing commas
  },
}`;
    const s = only(parseMcpJson(text, APP)) as StdioServerConfig;
    assert.deepEqual(s.args, ['x.js']);
  });

  it('treats an empty file, or one with only comments, as no servers and no errors', () => {
    for (const text of ['', '  \n', '// nothing yet\n', '\uFEFF']) {
      assert.deepEqual(parseMcpJson(text, APP), { servers: [], inputs: [], errors: [] });
    }
  });

  it('reports a syntax error with its line and column, and uses nothing from the file', () => {
    const text = '{\n  "servers": {\n    "a": { "command": "x" }\n    "b": { "command": "y" }\n  }\n}';
    const r = parseMcpJson(text, APP);
    assert.deepEqual(r.servers, []);
    assert.equal(r.errors.length, 1);
    const e = r.errors[0];
    assert.equal(e.kind, 'syntax');
    assert.equal(e.source, '/ws/app/.vscode/mcp.json');
    assert.equal(e.line, 4);
    assert.equal(e.column, 5);
    assert.equal(e.message, '.vscode/mcp.json (folder "app"), line 4, column 5: a comma is missing.');
  });

  it('counts lines in files with CRLF line ends', () => {
    const r = parseMcpJson('{\r\n  "servers": {\r\n    "a": @\r\n  }\r\n}', APP);
    assert.equal(r.errors[0].kind, 'syntax');
    assert.equal(r.errors[0].line, 3);
    assert.equal(r.errors[0].column, 10);
  });

  it('rejects an unknown type, naming the allowed ones as a list ("a", "b" or "c")', () => {
    const r = file({ servers: { a: { type: 'grpc', url: 'https://h' }, ok: { command: 'x' } } });
    assert.deepEqual(
      r.servers.map((s) => s.name),
      ['ok'],
    );
    assert.deepEqual(messages(r), ['.vscode/mcp.json (folder "app"), server "a": "type" must be "stdio", "http" or "sse", not "grpc".']);
    assert.equal(r.errors[0].server, 'a');
    assert.equal(r.errors[0].kind, 'invalid');
  });

  it('rejects "ws" in mcp.json and says to move the server to the setting', () => {
    const r = file({ servers: { sock: { type: 'ws', url: 'ws://127.0.0.1:1' } } });
    assert.deepEqual(r.servers, []);
    assert.equal(r.errors.length, 1);
    assert.match(r.errors[0].message, /^\.vscode\/mcp\.json \(folder "app"\), server "sock": "type": "ws" is not allowed/);
    assert.match(r.errors[0].message, /move this server to the "mcpTasks\.servers" setting/);
  });

  it('reports a missing command or url', () => {
    const r = file({ servers: { a: { type: 'stdio' }, b: { type: 'http' }, c: { args: ['x'] } } });
    assert.deepEqual(r.servers, []);
    assert.deepEqual(messages(r), [
      '.vscode/mcp.json (folder "app"), server "a": "command" is missing.',
      '.vscode/mcp.json (folder "app"), server "b": "url" is missing.',
      '.vscode/mcp.json (folder "app"), server "c": needs "command" (to start a local server) or "url" (to connect to a remote one).',
    ]);
  });

  it('reports wrong types with the field, the server and the position; one bad server hides no other', () => {
    const text = `{
  "servers": {
    "db": { "command": 42 },
    "good": { "command": "node" },
    "web": { "url": "https://h/mcp", "headers": { "X-Key": 1 } },
    "tools": { "command": "x", "args": ["a", 2], "env": { "A": true }, "cwd": [] },
    "notObject": "npx server"
  }
}`;
    const r = parseMcpJson(text, APP);
    assert.deepEqual(
      r.servers.map((s) => s.name),
      ['good'],
    );
    const byMessage = r.errors.map((e) => [e.message, e.line, e.column]);
    assert.deepEqual(byMessage, [
      ['.vscode/mcp.json (folder "app"), server "db": "command" must be a string.', 3, 24],
      ['.vscode/mcp.json (folder "app"), server "web": "headers.X-Key" must be a string.', 5, 60],
      ['.vscode/mcp.json (folder "app"), server "tools": "args[1]" must be a string.', 6, 46],
      ['.vscode/mcp.json (folder "app"), server "tools": "env.A" must be a string, a number or null.', 6, 64],
      ['.vscode/mcp.json (folder "app"), server "tools": "cwd" must be a string (a folder path).', 6, 79],
      ['.vscode/mcp.json (folder "app"), server "notObject": must be an object, e.g. { "command": "node", "args": ["server.js"] }.', 7, 18],
    ]);
    assert.ok(r.errors.every((e) => e.source === '/ws/app/.vscode/mcp.json'));
  });

  it('points a missing field at the server\'s name', () => {
    const r = parseMcpJson('{\n  "servers": {\n    "a": { "type": "stdio" }\n  }\n}', APP);
    assert.equal(r.errors[0].line, 3);
    assert.equal(r.errors[0].column, 5);
  });

  it('an invalid url is quoted without what could be a secret in it (its query, a user:password@)', () => {
    const r = file({
      servers: {
        a: { url: 'api.example.com/mcp?api_key=sk-live-SECRET123' },
        b: { url: 'https://me:hunter22@api example.com/mcp' },
        c: { url: 'http://admin:s3cr@t-pw@host:99999/mcp' },
        d: { url: 'http://admin:pa/ss@host:99999/mcp' },
      },
    });
    assert.deepEqual(messages(r), [
      '.vscode/mcp.json (folder "app"), server "a": "url" is not a valid URL: "api.example.com/mcp?…".',
      '.vscode/mcp.json (folder "app"), server "b": "url" is not a valid URL: "https://…@api example.com/mcp".',
      '.vscode/mcp.json (folder "app"), server "c": "url" is not a valid URL: "http://…@host:99999/mcp".',
      '.vscode/mcp.json (folder "app"), server "d": "url" is not a valid URL: "http://…@host:99999/mcp".',
    ]);
  });

  it('rejects an empty command and a malformed or wrong-scheme url', () => {
    const r = file({
      servers: {
        a: { command: '' },
        b: { url: 'not a url' },
        c: { type: 'http', url: 'ws://h/mcp' },
        d: { type: 'http', url: 'https://${input:host}/mcp' }, // checked after resolution
      },
      inputs: [{ type: 'promptString', id: 'host' }],
    });
    assert.deepEqual(messages(r).slice(0, 3), [
      '.vscode/mcp.json (folder "app"), server "a": "command" must not be empty.',
      '.vscode/mcp.json (folder "app"), server "b": "url" is not a valid URL: "not a url".',
      '.vscode/mcp.json (folder "app"), server "c": "url" must start with http:// or https:// for a server of type "http".',
    ]);
    assert.deepEqual(
      r.servers.map((s) => s.name),
      ['d'],
    );
  });

  it('reports a servers value or a file that is not an object', () => {
    assert.deepEqual(messages(parseMcpJson('[]', APP)), ['.vscode/mcp.json (folder "app"): the file must contain an object, e.g. { "servers": { ... } }.']);
    assert.deepEqual(messages(file({ servers: [] })), ['.vscode/mcp.json (folder "app"): "servers" must be an object that maps server names to servers.']);
    assert.deepEqual(file({ inputs: [] }), { servers: [], inputs: [], errors: [] });
  });

  it('warns about a server defined twice and keeps the last one', () => {
    const r = parseMcpJson('{ "servers": { "a": { "command": "one" }, "a": { "command": "two" } } }', APP);
    assert.equal((r.servers[0] as StdioServerConfig).command, 'two');
    assert.deepEqual(messages(r), ['.vscode/mcp.json (folder "app"), server "a": defined more than once; the last definition is used.']);
  });

  it('an error in a server says apart what is wrong there (problem: the view\'s row, whose label names the server, shows it), in the file as in the setting; one outside any server has none', () => {
    const fields = (r: ParseResult) => r.errors.map(({ server, where, problem, message }) => ({ server, where, problem, message }));
    const twice = parseMcpJson('{ "servers": { "a": { "command": 42 }, "": {}, "a": { "command": 42 } } }', APP);
    const app = '.vscode/mcp.json (folder "app")';
    assert.deepEqual(fields(twice), [
      { server: 'a', where: app, problem: 'defined more than once; the last definition is used.', message: `${app}, server "a": defined more than once; the last definition is used.` },
      { server: 'a', where: app, problem: '"command" must be a string.', message: `${app}, server "a": "command" must be a string.` },
      { server: '', where: app, problem: 'a server name must not be empty.', message: `${app}, server "": a server name must not be empty.` },
    ]);
    const setting = 'Setting "mcpTasks.servers"';
    assert.deepEqual(fields(parseSettingServers({ b: { type: 'stdio', command: 42 } })), [
      { server: 'b', where: setting, problem: '"command" must be a string.', message: `${setting}, server "b": "command" must be a string.` },
    ]);
    assert.deepEqual(fields(parseSettingServers([])), [{ server: undefined, where: setting, problem: undefined, message: `${setting} must be an object that maps server names to servers.` }]);
    assert.deepEqual(fields(file({ servers: [] })), [{ server: undefined, where: app, problem: undefined, message: `${app}: "servers" must be an object that maps server names to servers.` }]);
  });

  it('keyPosition finds a server\'s name (Open Configuration puts the cursor there): the last of a repeated one, one before a syntax error, none that is not there', () => {
    const text = '{\n  // mine\n  "servers": {\n    "a": { "command": "one" },\n    "b": {},\n    "a": { "command": "two" },\n    "c": { oops';
    assert.deepEqual(keyPosition(text, ['servers', 'b']), { line: 5, column: 5 });
    assert.deepEqual(keyPosition(text, ['servers', 'a']), { line: 6, column: 5 });
    assert.deepEqual(keyPosition(text, ['servers', 'c']), { line: 7, column: 5 });
    assert.equal(keyPosition(text, ['servers', 'd']), undefined);
    assert.equal(keyPosition(text, ['mcpTasks.servers', 'a']), undefined);
    assert.deepEqual(keyPosition('{ "mcpTasks.servers": { "x": {} } }', ['mcpTasks.servers', 'x']), { line: 1, column: 25 });
  });
});

describe('config: inputs', () => {
  it('reads promptString inputs; password is flagged and defaults to false', () => {
    const r = file({
      inputs: [
        { type: 'promptString', id: 'token', description: 'API token', password: true },
        { type: 'promptString', id: 'region', description: 'Region', default: 'eu' },
        { type: 'promptString', id: 'bare' },
      ],
      servers: { a: { url: 'https://h/mcp', headers: { Authorization: 'Bearer ${input:token}' } } },
    });
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.inputs, [
      { type: 'promptString', id: 'token', description: 'API token', password: true },
      { type: 'promptString', id: 'region', description: 'Region', password: false, default: 'eu' },
      { type: 'promptString', id: 'bare', description: 'bare', password: false },
    ]);
    // A server carries the inputs it refers to, and only those.
    assert.deepEqual(r.servers[0].inputs, [r.inputs[0]]);
  });

  it('reports bad inputs without losing the good ones', () => {
    const r = file({
      inputs: [
        { type: 'shellCommand', id: 'p', command: 'x.y' },
        { id: 'noType' },
        { type: 'promptString', id: 'ok', password: 'yes' },
        { type: 'promptString' },
        'x',
        { type: 'promptString', id: 'good' },
        { type: 'promptString', id: 'good' },
      ],
    });
    assert.deepEqual(
      r.inputs.map((i) => i.id),
      ['good'],
    );
    assert.deepEqual(messages(r), [
      '.vscode/mcp.json (folder "app"), input "p": "type" must be "promptString", "pickString" or "command", not "shellCommand".',
      '.vscode/mcp.json (folder "app"), input "noType": "type" is missing (use "promptString", "pickString" or "command").',
      '.vscode/mcp.json (folder "app"), input "ok": "password" must be true or false.',
      '.vscode/mcp.json (folder "app"), input #4: "id" is missing.',
      '.vscode/mcp.json (folder "app"), input #5: must be an object, e.g. { "type": "promptString", "id": "api-key", "description": "API key" }.',
      '.vscode/mcp.json (folder "app"), input "good": defined more than once; the first definition is used.',
    ]);
    assert.deepEqual(messages(file({ inputs: {} })), ['.vscode/mcp.json (folder "app"): "inputs" must be a list.']);
  });

  it('reads command inputs: the command, and its args as they are (any JSON, as VS Code passes them)', () => {
    const r = file({
      inputs: [
        { type: 'command', id: 'tok', command: 'ext.getToken' },
        { type: 'command', id: 'withArgs', command: 'ext.pick', args: { scope: 'repo', n: [1, null] } },
        { type: 'command', id: 'noCommand' },
        { type: 'command', id: 'empty', command: '' },
        { type: 'command', id: 'notText', command: 42 },
      ],
      servers: { b: { command: 'node', env: { T: '${input:tok}' }, args: ['${input:withArgs}'] } },
    });
    assert.deepEqual(r.inputs, [
      { type: 'command', id: 'tok', command: 'ext.getToken' },
      { type: 'command', id: 'withArgs', command: 'ext.pick', args: { scope: 'repo', n: [1, null] } },
    ]);
    assert.deepEqual(r.servers[0].inputs, r.inputs);
    assert.deepEqual(messages(r), [
      '.vscode/mcp.json (folder "app"), input "noCommand": "command" is missing.',
      '.vscode/mcp.json (folder "app"), input "empty": "command" must not be empty.',
      '.vscode/mcp.json (folder "app"), input "notText": "command" must be a string (the id of an editor command).',
    ]);
  });

  it('reads pickString inputs: options as strings or { label, value }, the default one of them', () => {
    const r = file({
      inputs: [
        { type: 'pickString', id: 'region', description: 'Region', options: ['eu', { label: 'United States', value: 'us' }, { value: 'ap' }], default: 'us' },
        { type: 'pickString', id: 'bare', options: ['x'] },
        { type: 'pickString', id: 'none', options: [] },
        { type: 'pickString', id: 'odd', options: ['a', 3] },
        { type: 'pickString', id: 'missing' },
        { type: 'pickString', id: 'astray', options: ['a'], default: 'b' },
      ],
      servers: { s: { command: 'x', args: ['--region', '${input:region}', '${input:astray}'] }, t: { command: 'x', args: ['--region', '${input:region}'] } },
    });
    assert.deepEqual(r.inputs, [
      { type: 'pickString', id: 'region', description: 'Region', options: [{ label: 'eu', value: 'eu' }, { label: 'United States', value: 'us' }, { label: 'ap', value: 'ap' }], default: 'us' },
      { type: 'pickString', id: 'bare', description: 'bare', options: [{ label: 'x', value: 'x' }] },
    ]);
    // s, which uses the refused input, is left out.
    assert.deepEqual(
      r.servers.map((x) => [x.name, x.inputs]),
      [['t', [r.inputs[0]]]],
    );
    assert.deepEqual(messages(r), [
      '.vscode/mcp.json (folder "app"), input "none": "options" must not be empty.',
      '.vscode/mcp.json (folder "app"), input "odd": "options[1]" must be a string or { "label": "...", "value": "..." }.',
      '.vscode/mcp.json (folder "app"), input "missing": "options" is missing.',
      '.vscode/mcp.json (folder "app"), input "astray": "default" "b" is not one of the options.',
      // A server that uses an input whose definition was refused says so, not that it is undefined.
      '.vscode/mcp.json (folder "app"), server "s": "args[2]" uses "${input:astray}", but input "astray" could not be read (see its error).',
    ]);
  });

  it('reports unknown variables and undefined inputs, and leaves the server out: the view shows it once, as its error', () => {
    const r = file({ servers: { a: { command: 'x', args: ['${config:foo}', '${input:nope}', '${workspaceFolder}'] }, b: { command: 'x', args: ['${workspaceFolder}'] } } });
    assert.deepEqual(
      r.servers.map((s) => s.name),
      ['b'],
    );
    assert.ok(r.errors.every((e) => e.server === 'a'));
    assert.deepEqual(messages(r), [
      '.vscode/mcp.json (folder "app"), server "a": "args[0]" uses the unknown variable "${config:foo}".',
      '.vscode/mcp.json (folder "app"), server "a": "args[1]" uses "${input:nope}", but no input with that id is defined in "inputs".',
    ]);
  });
});

describe('config: parseSettingServers', () => {
  it('reads servers, and accepts "ws" there', () => {
    const r = parseSettingServers({ sock: { type: 'ws', url: 'wss://h/mcp' }, local: { command: 'node' } });
    assert.deepEqual(r.errors, []);
    assert.deepEqual(
      r.servers.map((s) => [s.id, s.type, s.label]),
      [
        ['settings:sock', 'ws', 'sock'],
        ['settings:local', 'stdio', 'local'],
      ],
    );
    assert.deepEqual(r.servers[0].source, { kind: 'settings' });
  });

  it('reports problems naming the setting and the server, without positions', () => {
    const r = parseSettingServers({ a: { command: 1 }, b: { type: 'ws', url: 'https://h' }, c: { type: 'tcp' }, ok: { url: 'http://h' } });
    assert.deepEqual(
      r.servers.map((s) => s.name),
      ['ok'],
    );
    assert.deepEqual(messages(r), [
      'Setting "mcpTasks.servers", server "a": "command" must be a string.',
      'Setting "mcpTasks.servers", server "b": "url" must start with ws:// or wss:// for a server of type "ws".',
      'Setting "mcpTasks.servers", server "c": "type" must be "stdio", "http", "sse" or "ws", not "tcp".',
    ]);
    assert.ok(r.errors.every((e) => e.source === 'settings' && e.line === undefined));
  });

  it('says that inputs belong in mcp.json', () => {
    const r = parseSettingServers({ a: { url: 'https://h', headers: { K: '${input:k}' } } });
    assert.match(r.errors[0].message, /inputs can only be defined in \.vscode\/mcp\.json/);
  });

  it('accepts an unset setting and rejects a value that is not an object', () => {
    assert.deepEqual(parseSettingServers(undefined), { servers: [], inputs: [], errors: [] });
    assert.deepEqual(parseSettingServers(null).errors, []);
    assert.deepEqual(messages(parseSettingServers(['x'])), ['Setting "mcpTasks.servers" must be an object that maps server names to servers.']);
  });
});

describe('config: combineConfigs', () => {
  it('gives same-named servers of two folders distinct ids and labels', () => {
    const one = parseMcpJson('{ "servers": { "db": { "command": "a" }, "solo": { "command": "s" } } }', folder('app'));
    const two = parseMcpJson('{ "servers": { "db": { "command": "b" } } }', folder('lib'));
    const settings = parseSettingServers({ db: { command: 'c' } });
    const all = combineConfigs([one, two, settings]);
    assert.deepEqual(
      all.servers.map((s) => [s.id, s.label]),
      [
        ['folder:/ws/app:db', 'db (app)'],
        ['folder:/ws/app:solo', 'solo'],
        ['folder:/ws/lib:db', 'db (lib)'],
        ['settings:db', 'db (settings)'],
      ],
    );
  });

  it('falls back to the folder path when two folders have the same name', () => {
    const a = parseMcpJson('{ "servers": { "db": { "command": "a" } } }', folder('app', '/one/app'));
    const b = parseMcpJson('{ "servers": { "db": { "command": "b" } } }', folder('app', '/two/app'));
    assert.deepEqual(
      combineConfigs([a, b]).servers.map((s) => s.label),
      ['db (/one/app)', 'db (/two/app)'],
    );
  });

  it('joins errors and inputs of every source', () => {
    const a = file({ inputs: [{ type: 'promptString', id: 'k' }], servers: { x: {} } });
    const b = parseSettingServers(3);
    const all = combineConfigs([a, b]);
    assert.equal(all.inputs.length, 1);
    assert.equal(all.errors.length, 2);
  });
});

describe('config: keepLastReadable (a file saved in the middle of an edit)', () => {
  const good = file({ servers: { a: { command: 'node', args: ['a.js'] } } });

  it('a syntax error keeps the servers and inputs of the last readable version, and still reports the error', () => {
    const typing = parseMcpJson('{ "servers": { "a": { "command": "node", "args": ["a.js"] }, "b": { "comm', APP);
    assert.equal(typing.servers.length, 0, 'nothing of an unreadable file is used');
    const kept = keepLastReadable(good, typing);
    assert.deepEqual(kept.servers, good.servers);
    assert.deepEqual(kept.inputs, good.inputs);
    assert.equal(kept.errors.length, 1);
    assert.match(kept.errors[0].message, /^\.vscode\/mcp\.json \(folder "app"\), line 1, column \d+: .*\. Its servers stay as they were until it can be read\.$/);
  });

  it('a readable file is used as it is, with its own errors; with nothing readable before, so is an unreadable one', () => {
    const next = file({ servers: { b: { command: 'python' }, c: { type: 'nope' } } });
    assert.equal(keepLastReadable(good, next), next);
    assert.equal(next.servers[0].name, 'b');
    const typing = parseMcpJson('{', APP);
    assert.equal(keepLastReadable(undefined, typing), typing);
  });
});

describe('serverNameOfId: the name of a server no longer configured', () => {
  it('keeps the colons of a name and of a Windows folder path', () => {
    const folder: ConfigSource = { kind: 'workspaceFolder', folderName: 'app', folderPath: 'C:\\work\\app', file: 'C:\\work\\app\\.vscode\\mcp.json' };
    const id = serverId(folder, 'db:prod');
    assert.equal(serverNameOfId(id, ['D:\\other', 'C:\\work\\app']), 'db:prod');
    assert.equal(serverNameOfId(serverId({ kind: 'settings' }, 'team:search'), []), 'team:search');
  });

  it('without the folder open, takes what follows the last colon', () => {
    assert.equal(serverNameOfId('folder:/gone/folder:weather', ['/work']), 'weather');
  });
});

describe('placeOfId: where a server is configured, from its id (Revoke Sampling Permissions)', () => {
  it('names the file, the setting or the user mcp.json, as the server picks do, not the id', () => {
    const app: ConfigSource = { kind: 'workspaceFolder', folderName: 'ws', folderPath: path.join('/tmp', 'ws'), file: path.join('/tmp', 'ws', '.vscode', 'mcp.json') };
    assert.equal(placeOfId(serverId(app, 'everything'), 'everything'), app.file);
    assert.equal(placeOfId(serverId(app, 'db:prod'), 'db:prod'), app.file, 'a name with a colon');
    assert.equal(placeOfId(serverId(app, 'db'), 'db (ws)'), app.file, 'labelled with its folder');
    assert.equal(placeOfId(serverId({ kind: 'settings' }, 'demo'), 'demo'), sourcePlace({ kind: 'settings' }));
    assert.equal(placeOfId(serverId({ kind: 'user', file: '/home/u/mcp.json' }, 'demo'), 'demo'), 'User mcp.json');
  });
});

describe('config: newProblems (the errors notified)', () => {
  const shown = new Map<string, string[]>();
  const notified = (...texts: string[]) => newProblems(shown, texts.flatMap((t, i) => parseMcpJson(t, folder(`f${i}`)).errors)).map((l) => l.map((e) => e.message));
  const broken = '{ "servers": { "a": { "command": "x" } ';
  const twoBad = '{ "servers": { "a": { "command": 1 }, "b": {} } }';

  it('nothing when nothing is wrong', () => {
    assert.deepEqual(notified('{}', '{ "servers": {} }'), []);
  });

  it('a file with several errors is one list; the same errors read again are not notified again', () => {
    const lists = notified(twoBad, '{}');
    assert.equal(lists.length, 1);
    assert.equal(lists[0].length, 2);
    assert.deepEqual(notified(twoBad, '{}'), []);
  });

  it('a new problem in a file is notified with the file\'s others; one fixed is not', () => {
    assert.equal(notified('{ "servers": { "a": { "command": 1 } } }', '{}').length, 0);
    assert.deepEqual(notified(twoBad, '{}').map((l) => l.length), [2]);
  });

  it('a syntax error is one problem wherever it moves while the user types; fixed, then broken again, it is notified again', () => {
    assert.deepEqual(notified(broken, '{}').map((l) => l.length), [1]);
    assert.deepEqual(notified(broken + ',', '{}'), []);
    assert.deepEqual(notified('{}', '{}'), []);
    assert.deepEqual(notified(broken, '{}').map((l) => l.length), [1]);
  });

  it('a file open in an editor (auto save saves each state the user types through): notified when it breaks, then not again however its problems change, until it is valid again; a file not open is notified of each new problem', () => {
    const mine = new Map<string, string[]>();
    const opened = new Set<string>();
    const edited = (...texts: string[]) => newProblems(mine, texts.flatMap((t, i) => parseMcpJson(t, folder(`f${i}`)).errors), (source) => opened.has(source)).map((l) => l.map((e) => e.message.slice(0, 31)));
    const noCommand = '{ "servers": { "a": { "type": "stdio" } } }';
    const badArgs = '{ "servers": { "a": { "command": "node", "args": 1 } } }';
    opened.add('/ws/f0/.vscode/mcp.json');
    assert.deepEqual(edited(noCommand, noCommand), [['.vscode/mcp.json (folder "f0"),'], ['.vscode/mcp.json (folder "f1"),']]);
    assert.deepEqual(edited(badArgs, badArgs), [['.vscode/mcp.json (folder "f1"),']], 'the file being edited is not notified of its new problem; the other one is');
    assert.deepEqual(edited(broken, broken), [['.vscode/mcp.json (folder "f1"),']]);
    assert.deepEqual(edited('{}', '{}'), []);
    assert.deepEqual(edited(badArgs, '{}'), [['.vscode/mcp.json (folder "f0"),']], 'broken again: notified');
  });

  it('each file stands alone: another file\'s error does not notify this one\'s again', () => {
    assert.deepEqual(notified(broken, broken).map((l) => l.map((m) => m.slice(0, 31))), [['.vscode/mcp.json (folder "f1"),']]);
  });
});
