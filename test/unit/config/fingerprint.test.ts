import * as assert from 'node:assert/strict';
import { combineConfigs, fingerprint, MCP_JSON_TEMPLATE, parseMcpJson, parseSettingServers } from '../../../src/core/config';
import type { ConfigSource, ServerConfig } from '../../../src/core/config';

const APP: ConfigSource = { kind: 'workspaceFolder', folderName: 'app', folderPath: '/ws/app', file: '/ws/app/.vscode/mcp.json' };
const one = (text: string): ServerConfig => {
  const r = parseMcpJson(text, APP);
  assert.deepEqual(r.errors, []);
  return r.servers[0];
};

describe('config: fingerprint', () => {
  const base = `{ "inputs": [{ "type": "promptString", "id": "k", "description": "Key" }],
    "servers": { "a": { "command": "node", "args": ["s.js"], "env": { "X": "1", "Y": "\${input:k}" } } } }`;

  it('is stable across formatting, comments, key order and ignored keys', () => {
    const same = `// reformatted
    { "servers": { "a": { "dev": {}, "env": { "Y": "\${input:k}", "X": "1" }, "args": ["s.js"], "type": "stdio", "command": "node", } },
      "inputs": [{ "description": "Key", "id": "k", "type": "promptString" }, { "type": "promptString", "id": "other" }] }`;
    assert.equal(fingerprint(one(same)), fingerprint(one(base)));
    assert.match(fingerprint(one(base)), /^[0-9a-f]{64}$/);
  });

  it('ignores the label, which changes when another server takes the same name', () => {
    const alone = one(base);
    const settings = parseSettingServers({ a: { command: 'other' } });
    const labelled = combineConfigs([parseMcpJson(base, APP), settings]).servers[0];
    assert.equal(labelled.label, 'a (app)');
    assert.equal(fingerprint(labelled), fingerprint(alone));
  });

  it('changes when anything that decides the connection changes', () => {
    const variants = [
      base.replace('"node"', '"deno"'),
      base.replace('["s.js"]', '["s.js", "-v"]'),
      base.replace('["s.js"]', '[]'),
      base.replace('"X": "1"', '"X": "2"'),
      base.replace('"X": "1"', '"X": null'),
      base.replace('"args"', '"cwd": "sub", "args"'),
      base.replace('"args"', '"envFile": ".env", "args"'),
      base.replace('"description": "Key"', '"description": "Key", "password": true'),
    ];
    const prints = new Set([base, ...variants].map((t) => fingerprint(one(t))));
    assert.equal(prints.size, variants.length + 1);
  });

  it('tells transports apart and sees header changes', () => {
    const http = (type: string, headers = '{}') => one(`{ "servers": { "a": { "type": "${type}", "url": "https://h/mcp", "headers": ${headers} } } }`);
    const prints = [http('http'), http('sse'), http('http', '{ "A": "1" }'), http('http', '{ "A": "2" }')].map(fingerprint);
    assert.equal(new Set(prints).size, 4);
    assert.equal(fingerprint(http('http', '{ "A": "1", "B": "2" }')), fingerprint(http('http', '{ "B": "2", "A": "1" }')));
  });

  it('does not contain secrets', () => {
    const s = one('{ "servers": { "a": { "url": "https://h/mcp", "headers": { "Authorization": "Bearer sekrit" } } } }');
    assert.ok(!fingerprint(s).includes('sekrit'));
  });
});

describe('config: MCP_JSON_TEMPLATE', () => {
  it('parses as it is, with no servers and no errors', () => {
    assert.deepEqual(parseMcpJson(MCP_JSON_TEMPLATE, APP), { servers: [], inputs: [], errors: [] });
  });

  it('gives valid stdio and http servers and an input when its examples are uncommented', () => {
    const uncommented = MCP_JSON_TEMPLATE.replace(/^(\s*)\/\/ (?=\s*["{}[\]])/gm, '$1');
    const r = parseMcpJson(uncommented, APP);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(
      r.servers.map((s) => [s.name, s.type]),
      [
        ['everything', 'stdio'],
        ['remote', 'http'],
      ],
    );
    assert.deepEqual(r.inputs.map((i) => [i.id, i.type === 'promptString' && i.password]), [['api-token', true]]);
    assert.deepEqual(r.servers[1].inputs, r.inputs);
  });
});
