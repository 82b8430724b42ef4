#!/usr/bin/env node
/**
 * The peer of the round-trip and task benchmarks: an MCP server on the official SDK's server side
 * (low-level `Server`, `StdioServerTransport`, `InMemoryTaskStore`), speaking stdio.
 *
 *   echo   a plain tool: answers `{ content: [{ type: 'text', text }] }` with the `text` it got
 *   timed  a task tool (taskSupport required): the task completes after `ms` milliseconds; the
 *          result's text is `{"completedAt": <wall-clock ms>}`, the moment the server stored it
 *
 *   --notify on|off       send notifications/tasks/status when a task completes (default on): on
 *                         goes through the SDK's request task store, which notifies; off writes
 *                         to the store directly, which does not
 *   --poll-interval MS    pollInterval of the tasks (default 500)
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

const argv = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i < 0 ? fallback : argv[i + 1];
};
const NOTIFY = flag('notify', 'on') !== 'off';
const POLL_INTERVAL = Number(flag('poll-interval', '500'));

const store = new InMemoryTaskStore();
const server = new Server(
  { name: 'bench-echo', version: '1.0.0' },
  {
    capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
    taskStore: store,
    taskMessageQueue: new InMemoryTaskMessageQueue(),
  },
);

const TOOLS = [
  { name: 'echo', description: 'Echoes text.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
  {
    name: 'timed',
    description: 'A task that completes after ms milliseconds.',
    inputSchema: { type: 'object', properties: { ms: { type: 'number' } } },
    execution: { taskSupport: 'required' },
  },
];

server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const { name, arguments: args = {}, task } = request.params;
  if (name === 'echo') return { content: [{ type: 'text', text: String(args.text ?? '') }] };
  if (name !== 'timed') throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${name}`);
  if (!task) throw new McpError(ErrorCode.MethodNotFound, 'timed must be called as a task');
  const created = await extra.taskStore.createTask({ ttl: task.ttl ?? 60_000, pollInterval: POLL_INTERVAL });
  const requestStore = extra.taskStore;
  setTimeout(() => {
    const completedAt = performance.timeOrigin + performance.now();
    const result = { content: [{ type: 'text', text: JSON.stringify({ completedAt }) }] };
    const done = NOTIFY ? requestStore.storeTaskResult(created.taskId, 'completed', result) : store.storeTaskResult(created.taskId, 'completed', result);
    done.catch((e) => process.stderr.write(`bench-echo: ${e.message}\n`));
  }, Number(args.ms ?? 0));
  return { task: created };
});

const transport = new StdioServerTransport();
transport.onclose = () => process.exit(0);
process.stdin.on('end', () => process.exit(0));
await server.connect(transport);
