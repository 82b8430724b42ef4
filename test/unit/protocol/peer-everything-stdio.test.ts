import * as assert from 'node:assert/strict';
import { CallToolResultSchema } from '../../../src/core/protocol/schemas';
import { McpSession } from '../../../src/core/protocol/session';
import { StdioTransport } from '../../../src/core/transports/stdio';
import { MemoryLogger } from '../helpers/logger';
import { everythingEntry } from '../helpers/peers';

describe('peer: server-everything over stdio', function () {
  this.timeout(30000);
  let session: McpSession;
  const log = new MemoryLogger();

  before(async () => {
    const transport = new StdioTransport({ command: process.execPath, args: [everythingEntry, 'stdio'], logger: log });
    session = new McpSession(transport, {
      logger: log,
      clientInfo: { name: 'mcp-tasks-test', version: '0.0.0' },
      roots: () => [{ uri: 'file:///work/project', name: 'project' }],
    });
    await session.connect();
  });
  after(() => session?.close());

  it('initializes at 2025-11-25 and reads the tasks capability', () => {
    assert.equal(session.protocolVersion, '2025-11-25');
    assert.equal(session.serverInfo?.name, 'mcp-servers/everything');
    assert.equal(session.supportsTasks, true);
    assert.match(session.tasksSummary, /tools\/call/);
  });

  it('lists tools and reads simulate-research-query as taskSupport required', async () => {
    const tools = await session.listTools();
    const t = tools.find((x) => x.name === 'simulate-research-query');
    assert.ok(t, `tools: ${tools.map((x) => x.name).join(', ')}`);
    assert.equal(t.execution?.taskSupport, 'required');
    const echo = tools.find((x) => x.name === 'echo');
    assert.ok(echo, 'echo tool');
    assert.notEqual(echo.execution?.taskSupport, 'required');
  });

  it('answers ping both ways and serves roots/list', async () => {
    await session.ping();
    const result = await session.request('tools/call', { name: 'get-roots-list', arguments: {} }, CallToolResultSchema);
    const text = JSON.stringify(result.content);
    assert.match(text, /file:\/\/\/work\/project/);
  });
});
