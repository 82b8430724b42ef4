// The user's own mcp.json (VS Code's "MCP: Open User Configuration"): a source of servers next to
// the `mcpTasks.servers` setting and the folders' `.vscode/mcp.json`.
import * as assert from 'node:assert/strict';
import { combineConfigs, keepLastReadable, parseMcpJson, parseSettingServers, resolveServer } from '../../../src/core/config';
import type { ConfigSource, ResolveContext, ServerConfig } from '../../../src/core/config';
import { describeSource, serverId, serverNameOfId, sourceKey, sourcePlace } from '../../../src/core/config/types';
import { trustBlocker } from '../../../src/core/config/trust';

const USER: ConfigSource = { kind: 'user', file: '/home/me/.config/Code/User/mcp.json' };
const folder = (name: string, folderPath = `/ws/${name}`): ConfigSource => ({ kind: 'workspaceFolder', folderName: name, folderPath, file: `${folderPath}/.vscode/mcp.json` });

const DOC = JSON.stringify({
  servers: {
    search: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${input:token}' } },
    local: { command: 'node', args: ['${workspaceFolder}/server.js'] },
  },
  inputs: [{ type: 'promptString', id: 'token', description: 'API token', password: true }],
});

const context = (folderPaths: string[]): ResolveContext => ({
  folders: Object.fromEntries(folderPaths.map((p) => [p.split('/').pop()!, p])),
  folderPaths,
  userHome: '/home/me',
  env: {},
  promptInput: async (input) => `value-of-${input.id}`,
  readFile: async () => '',
});

describe('config: the user mcp.json', () => {
  it('is read as a workspace mcp.json is: servers, and inputs (promptString with password) that its servers use', () => {
    const r = parseMcpJson(DOC, USER);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.inputs, [{ type: 'promptString', id: 'token', description: 'API token', password: true }]);
    const search = r.servers.find((s) => s.name === 'search')!;
    assert.deepEqual([search.id, search.source], ['user:search', USER]);
    assert.deepEqual(search.inputs, r.inputs);
  });

  it('its servers have ids of their own: not those of a same-named server of the settings or of a folder', () => {
    const ids = [USER, { kind: 'settings' } as const, folder('app')].map((s) => serverId(s, 'search'));
    assert.deepEqual(ids, ['user:search', 'settings:search', 'folder:/ws/app:search']);
    assert.equal(parseMcpJson(DOC, USER).servers[0].id, 'user:search');
    // A server no longer configured keeps its name (colons too).
    assert.equal(serverNameOfId(serverId(USER, 'db:prod'), ['/ws/app']), 'db:prod');
  });

  it('messages name it "User mcp.json"; the view and the pick show its path; its errors open the file', () => {
    assert.equal(describeSource(USER), 'User mcp.json');
    assert.equal(sourcePlace(USER), USER.file);
    assert.equal(sourceKey(USER), USER.file);
    const bad = parseMcpJson('{ "servers": { "x": { "type": "ws", "url": "ws://h" } } }', USER);
    assert.deepEqual(
      bad.errors.map((e) => [e.source, e.where, e.message]),
      [[USER.file, 'User mcp.json', 'User mcp.json, server "x": "type": "ws" is not allowed in mcp.json (VS Code would reject the file); move this server to the "mcpTasks.servers" setting.']],
    );
    const typing = parseMcpJson('{ "servers": {', USER);
    assert.match(typing.errors[0].message, /^User mcp\.json, line 1, column \d+: /);
    // A save in the middle of an edit keeps the servers of the last readable version.
    assert.equal(keepLastReadable(parseMcpJson(DOC, USER), typing).servers.length, 2);
  });

  it('a server named as one of the settings and one of a folder (even a folder named "user") gets a label that says "user"', () => {
    const all = combineConfigs([parseSettingServers({ db: { command: 'a' } }), parseMcpJson('{ "servers": { "db": { "command": "b" } } }', USER), parseMcpJson('{ "servers": { "db": { "command": "c" } } }', folder('user'))]);
    assert.deepEqual(
      all.servers.map((s) => [s.id, s.label]),
      [
        ['settings:db', 'db (settings)'],
        ['user:db', 'db (user)'],
        ['folder:/ws/user:db', 'db (/ws/user)'],
      ],
    );
  });

  it('is the user\'s own file: an untrusted workspace does not keep its servers from starting', () => {
    const s = parseMcpJson(DOC, USER).servers[0];
    assert.equal(trustBlocker(s, false), undefined);
  });

  it('"${workspaceFolder}" is the window\'s one folder; with none, or several, the error says what to do', async () => {
    const local: ServerConfig = parseMcpJson(DOC, USER).servers.find((s) => s.name === 'local')!;
    const one = await resolveServer(local, context(['/ws/app']));
    assert.ok(one.ok && one.server.type === 'stdio');
    assert.deepEqual([one.server.args, one.server.cwd], [['/ws/app/server.js'], undefined]);
    assert.deepEqual(await resolveServer(local, context([])), { ok: false, message: '"args[0]" uses "${workspaceFolder}", but there is no workspace folder to take it from.' });
    const two = await resolveServer(local, context(['/ws/app', '/ws/lib']));
    assert.deepEqual(two, { ok: false, message: '"args[0]" uses "${workspaceFolder}", but the workspace has 2 folders: name one, as in "${workspaceFolder:app}".' });
  });
});
