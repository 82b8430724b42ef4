import * as assert from 'node:assert/strict';
import { parseMcpJson, parseSettingServers } from '../../../src/core/config/parse';
import { trustBlocker } from '../../../src/core/config/trust';
import { bareServerManager } from '../helpers/servers';

const folder = { kind: 'workspaceFolder' as const, folderName: 'app', folderPath: '/work/app', file: '/work/app/.vscode/mcp.json' };

describe('workspace trust gate', () => {
  const fromFile = parseMcpJson('{ "servers": { "local": { "command": "node", "args": ["evil.js"] } } }', folder).servers[0];
  const fromSettings = parseSettingServers({ mine: { command: 'node' } }).servers[0];

  it('a server from an untrusted workspace .vscode/mcp.json may not start, and the reason says how to trust it', () => {
    assert.match(trustBlocker(fromFile, false) ?? '', /not trusted.*Manage Workspace Trust/);
  });

  it('in a trusted workspace, and for the user\'s own settings, servers may start', () => {
    assert.equal(trustBlocker(fromFile, true), undefined);
    assert.equal(trustBlocker(fromSettings, false), undefined);
  });

  it('the server manager shows the blocked state at once and never spawns the process', async () => {
    let spawned = 0;
    const servers = bareServerManager({
      startBlocker: (c) => trustBlocker(c, false),
      createTransport: () => {
        spawned++;
        throw new Error('must not be called');
      },
    });
    servers.setConfiguration([fromFile], []);
    assert.equal(servers.list()[0].state.kind, 'blocked');
    await assert.rejects(servers.getSession(fromFile.id), /not trusted/);
    assert.equal(spawned, 0);
    servers.dispose();
  });
});
