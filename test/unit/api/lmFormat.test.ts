import * as assert from 'node:assert/strict';
import { MAX_RESULT_CHARS, browserRefusal, formatResult, formatTask, formatTaskList, formatToolList, summarizeInputs } from '../../../src/core/api/lmFormat';
import type { ResultInfo, ServerInfo, TaskInfo, ToolInfo } from '../../../src/core/api/service';
import { urlsRequired } from '../../../src/core/elicitation/urlRequired';

const server = (over: Partial<ServerInfo> = {}): ServerInfo => ({
  id: 'folder:/w:everything',
  name: 'everything',
  label: 'everything',
  type: 'stdio',
  state: 'connected',
  tasks: { toolCalls: true, list: true, cancel: true },
  ...over,
});

const tool = (name: string, taskSupport: ToolInfo['taskSupport'], runsAsTask = taskSupport !== 'forbidden'): ToolInfo => ({
  serverId: 'folder:/w:everything',
  name,
  description: `${name} does things`,
  taskSupport,
  runsAsTask,
  inputSchema: {
    type: 'object',
    properties: {
      topic: { type: 'string', description: 'The research topic' },
      ambiguous: { type: 'boolean', default: false },
      region: { type: 'string', oneOf: [{ const: 'eu', title: 'Europe' }, { const: 'us', title: 'US' }] },
    },
    required: ['topic'],
  },
});

const task = (over: Partial<TaskInfo> = {}): TaskInfo => ({
  id: 'folder:/w:everything\u0000t-1',
  serverId: 'folder:/w:everything',
  serverLabel: 'everything',
  taskId: 't-1',
  kind: 'task',
  toolName: 'simulate-research-query',
  status: 'working',
  createdAt: '2025-11-25T10:00:00.000Z',
  lastUpdatedAt: '2025-11-25T10:00:02.000Z',
  ttl: 3_600_000,
  origin: 'chat',
  hasResult: false,
  ...over,
});

describe('language-model tool answers', () => {
  it('summarizes an input schema to names, types, required, descriptions and allowed values', () => {
    assert.deepEqual(summarizeInputs(tool('x', 'required').inputSchema), [
      { name: 'topic', type: 'string', required: true, description: 'The research topic', enum: undefined, default: undefined },
      { name: 'ambiguous', type: 'boolean', required: false, description: undefined, enum: undefined, default: false },
      { name: 'region', type: 'string', required: false, description: undefined, enum: ['eu', 'us'], default: undefined },
    ]);
    assert.deepEqual(summarizeInputs({ type: 'object' }), []);
    assert.deepEqual(summarizeInputs({ properties: { a: 'nonsense', b: { type: ['string', 'null'] } }, required: [1, 'b'] }), [
      { name: 'a', type: undefined, required: false, description: undefined, enum: undefined, default: undefined },
      { name: 'b', type: 'string | null', required: true, description: undefined, enum: undefined, default: undefined },
    ]);
  });

  it('lists only the tools that run as tasks, and says which servers failed or run no tasks', () => {
    const a = formatToolList([
      { server: server(), tools: [tool('simulate-research-query', 'required'), tool('echo', 'forbidden'), tool('maybe', 'optional')] },
      { server: server({ id: 'b', label: 'plain', tasks: { toolCalls: false, list: false, cancel: false } }), tools: [tool('lonely', 'optional', false)] },
      { server: server({ id: 'c', label: 'down', state: 'idle', tasks: undefined }), error: 'spawn nope ENOENT' },
      { server: server({ id: 'd', label: 'locked', state: 'idle', tasks: undefined }), needsInput: 'token' },
      { server: server({ id: 'e', label: 'off', state: 'idle', tasks: undefined }), held: true },
    ]);
    assert.match(a.text, /^2 tools can run as tasks:/);
    assert.match(a.text, /- server "everything", tool "simulate-research-query" \(taskSupport required\): simulate-research-query does things/);
    assert.match(a.text, /tool "maybe" \(taskSupport optional\)/);
    assert.doesNotMatch(a.text, /"echo"|"lonely"/);
    assert.match(a.text, /Server "down" could not be reached: spawn nope ENOENT/);
    assert.match(a.text, /Server "plain" does not run tools as tasks\./);
    assert.match(a.text, /Server "locked" was not connected: it needs input "token" from the user\. To list its tools, call mcpTasks_listTools with server "locked" \(the user is asked\)\./);
    assert.match(a.text, /Server "off" was not connected: the user disconnected it \(or dismissed its input\)\. Name it \(mcpTasks_listTools with server "off"\) only if the user wants it connected again\./);
    const data = a.data as { servers: Array<Record<string, unknown>>; tools: Array<Record<string, unknown>> };
    assert.deepEqual(data.servers.map((s) => [s.server, s.state, s.tasks]), [['everything', 'connected', true], ['plain', 'connected', false], ['down', 'error', false], ['locked', 'needsInput', false], ['off', 'disconnected', false]]);
    assert.deepEqual(data.tools.map((t) => [t.server, t.tool]), [['everything', 'simulate-research-query'], ['everything', 'maybe']]);
    assert.deepEqual(data.tools[0].inputSchema, tool('x', 'required').inputSchema);
    assert.equal(formatToolList([]).text, 'No MCP servers are configured in MCP Tasks.');
    // Not "0 tools can run as tasks:" with nothing after it.
    assert.equal(formatToolList([{ server: server({ label: 'plain' }), tools: [tool('lonely', 'forbidden', false)] }]).text, 'No tool can run as a task.');
  });

  it("a tool's inputs reach the model with their types and allowed values when the schema uses anyOf, $ref/$defs and items (a FastMCP/pydantic schema): a small schema whole, a huge one summarized", () => {
    // What FastMCP writes for research(topic: str, depth: int | None = None, color: Color = Color.red, items: list[Item]).
    const inputSchema = {
      $defs: {
        Color: { enum: ['red', 'green', 'blue'], title: 'Color', type: 'string' },
        Item: { properties: { name: { title: 'Name', type: 'string' }, qty: { default: 1, title: 'Qty', type: 'integer' } }, required: ['name'], title: 'Item', type: 'object' },
      },
      properties: {
        topic: { title: 'Topic', type: 'string' },
        depth: { anyOf: [{ type: 'integer' }, { type: 'null' }], default: null, title: 'Depth' },
        color: { $ref: '#/$defs/Color', default: 'red' },
        items: { items: { $ref: '#/$defs/Item' }, title: 'Items', type: 'array' },
      },
      required: ['topic', 'items'],
      title: 'researchArguments',
      type: 'object',
    };
    const list = (schema: Record<string, unknown>) => formatToolList([{ server: server(), tools: [{ ...tool('research', 'required'), inputSchema: schema }] }]).data.tools as Array<Record<string, unknown>>;
    const [small] = list(inputSchema);
    assert.deepEqual(small.inputSchema, inputSchema, 'the schema as the server wrote it: depth is an integer or null, color one of red, green, blue, items a list of {name, qty}');
    assert.equal(small.inputs, undefined, 'not said twice');
    // A schema of megabytes would flood the model's context: only its summary goes.
    const huge = { type: 'object', properties: { topic: { type: 'string', description: 'x'.repeat(1_000_000) }, depth: inputSchema.properties.depth } };
    const [big] = list(huge);
    assert.equal(big.inputSchema, undefined);
    assert.deepEqual((big.inputs as Array<{ name: string }>).map((i) => i.name), ['topic', 'depth']);
    assert.ok(JSON.stringify(big).length < 2000);
  });

  it('a started task: its id, status, the server\'s immediate response and what to do next; no editor ids', () => {
    const a = formatTask(task({ immediateResponse: 'Research started.', statusMessage: 'Gathering sources...', progress: { progress: 1, total: 4 } }), 'Started task "t-1".');
    assert.match(a.text, /^Started task "t-1"\.\nTask "t-1" \("simulate-research-query" on server "everything"\) is working \(Gathering sources\.\.\.; progress 1\/4\)\./);
    assert.match(a.text, /The server said: Research started\./);
    assert.match(a.text, /mcpTasks_getResult \(waitSeconds up to 120\)/);
    const t = a.data.task as Record<string, unknown>;
    assert.equal(t.taskId, 't-1');
    assert.equal(t.server, 'everything');
    assert.equal(t.ttlSeconds, 3600);
    assert.equal(t.startedBy, 'chat');
    assert.ok(!('id' in t) && !('serverId' in t), 'the editor\'s key and the long server id stay out of the model\'s context');
  });

  it("the server's immediate response (T-REQ-1, meant for the moment the task starts) is told while the task is live, not as news once it has ended", () => {
    const said = 'Research started, about 5 minutes.';
    const live = formatTask(task({ status: 'input_required', immediateResponse: said }));
    assert.match(live.text, /The server said: Research started, about 5 minutes\./);
    assert.equal((live.data.task as Record<string, unknown>).immediateResponse, said);
    for (const status of ['completed', 'failed', 'cancelled', 'expired', 'lost'] as const) {
      const ended = task({ status, immediateResponse: said, hasResult: true });
      const answers = [formatTask(ended), formatTask(ended, 'Task "t-1" had already ended: nothing was cancelled.'), formatTaskList([ended]), formatResult({ task: ended, done: true, outcome: { kind: 'result', result: { content: [] } } }, { seconds: 0, capped: false })];
      for (const a of answers) assert.ok(!`${a.text}${JSON.stringify(a.data)}`.includes('about 5 minutes'), `${status}: ${a.text}`);
    }
  });

  it('next steps follow the status', () => {
    assert.match(formatTask(task({ status: 'input_required' })).text, /waits for the user, who is asked a question in the editor/);
    assert.match(formatTask(task({ status: 'completed' })).text, /Read its result with mcpTasks_getResult/);
    assert.match(formatTask(task({ status: 'cancelled' })).text, /It has ended and has no result\./);
    assert.match(formatTask(task({ status: 'lost', hasResult: true })).text, /It has ended; read the result it had with mcpTasks_getResult\./);
    assert.match(formatTask(task({ status: 'lost', note: 'The server\'s process ended.' })).text, /is lost \(The server's process ended\.\)/);
  });

  it('lists tracked tasks, newest first as given, capped', () => {
    const many = Array.from({ length: 25 }, (_, i) => task({ taskId: `t-${i}` }));
    const a = formatTaskList(many);
    assert.match(a.text, /^25 tasks are tracked \(the newest 20 shown\):/);
    assert.equal((a.data.tasks as unknown[]).length, 20);
    assert.equal(formatTaskList([]).text, 'No tasks are tracked.');
    // Listed for one server, the answer says so: "No tasks are tracked." read as none on any server.
    assert.equal(formatTaskList([], 'lab').text, 'No tasks are tracked for server "lab".');
    assert.match(formatTaskList([task()], 'everything').text, /^1 task is tracked for server "everything":\n- Task "t-1"/);
  });

  it("writes its counts and a task's progress in the locale's digits, as the view does (\"1,000 tasks are tracked\", \"progress 1,500\", \"1,500 more characters cut\")", () => {
    const k = (n: number) => n.toLocaleString();
    assert.notEqual(k(1000), '1000', 'a locale that groups thousands (else this test cannot fail)');
    const many = Array.from({ length: 1000 }, (_, i) => task({ taskId: `t-${i}`, progress: { progress: 1500 } }));
    const list = formatTaskList(many).text;
    assert.match(list, new RegExp(`^${k(1000)} tasks are tracked \\(the newest 20 shown\\):`));
    assert.match(list, new RegExp(`\\(progress ${k(1500)}\\)`));
    const big = 'x'.repeat(MAX_RESULT_CHARS + 1500);
    const r = formatResult({ task: task({ status: 'completed' }), done: true, outcome: { kind: 'result', result: { content: [{ type: 'text', text: big }], structuredContent: { blob: big } } } }, { seconds: 0, capped: false });
    assert.match(r.text, new RegExp(`\\[… ${k(1500)} more characters cut`));
    assert.match(String(r.data.structuredContent), new RegExp(`^\\[${k(MAX_RESULT_CHARS + 1500 + 11)} characters of structured content cut`));
    const image = { type: 'image', mimeType: 'image/png', data: 'A'.repeat((1500 * 1024 * 4) / 3) };
    const pic = formatResult({ task: task({ status: 'completed' }), done: true, outcome: { kind: 'result', result: { content: [image] } } }, { seconds: 0, capped: false });
    assert.match(pic.text, new RegExp(`\\[image \\(image/png, ${k(1500)} KB\\), not included\\]`));
  });

  it('a result: text blocks verbatim, binary described not pasted, structured content in the JSON part', () => {
    const r: ResultInfo = {
      task: task({ status: 'completed', hasResult: true }),
      done: true,
      outcome: {
        kind: 'result',
        result: {
          content: [
            { type: 'text', text: '# Research Report: tides' },
            { type: 'image', mimeType: 'image/png', data: 'A'.repeat(4096) },
            { type: 'resource_link', uri: 'file:///r.md', name: 'r.md' },
            { type: 'resource', resource: { uri: 'mem://x', text: 'inner' } },
            { type: 'resource', resource: { uri: 'mem://b', mimeType: 'application/zip', blob: 'AAAA' } },
            { type: 'mystery', x: 1 },
          ],
          structuredContent: { files: 3 },
        },
      },
    };
    const a = formatResult(r, { seconds: 0, capped: false });
    assert.match(a.text, /is completed\./);
    assert.match(a.text, /The result:\n# Research Report: tides/);
    assert.match(a.text, /\[image \(image\/png, 3 KB\), not included\]/);
    assert.doesNotMatch(a.text, /AAAAAAAA/);
    assert.match(a.text, /\[resource link: r\.md <file:\/\/\/r\.md>\]/);
    assert.match(a.text, /\[embedded resource mem:\/\/x\]\ninner/);
    assert.match(a.text, /\[embedded resource mem:\/\/b \(application\/zip, 1 KB\), not included\]/);
    assert.match(a.text, /\[content of type "mystery"\]/);
    assert.deepEqual(a.data.structuredContent, { files: 3 });
    assert.equal(a.data.isError, false);
    assert.equal(a.data.done, true);
  });

  it('structured content that the text already holds as JSON (as a 2025-06-18 tool SHOULD send it) reaches the model once; other structured content is kept', () => {
    const sc = { city: 'Lisbon', temperature: 22.5, tags: ['sunny'] };
    const result = (content: Array<{ type: string; text: string }>, structuredContent: Record<string, unknown> = sc) =>
      formatResult({ task: task({ status: 'completed', hasResult: true }), done: true, outcome: { kind: 'result', result: { content, structuredContent } } }, { seconds: 0, capped: false });
    const text = (t: string) => ({ type: 'text', text: t });
    for (const json of [JSON.stringify(sc), JSON.stringify(sc, null, 2)]) {
      const a = result([text(json)]);
      assert.ok(a.text.endsWith(`The result:\n${json}`));
      assert.equal(a.data.structuredContent, undefined, `not sent twice: ${json}`);
    }
    assert.deepEqual(result([text('22.5 °C in Lisbon')]).data.structuredContent, sc, 'a text that is not the JSON');
    assert.deepEqual(result([text(JSON.stringify({ ...sc, city: 'Porto' }))]).data.structuredContent, sc, 'other JSON');
    assert.deepEqual(result([text(JSON.stringify(sc)), text('and more')]).data.structuredContent, sc, 'the JSON among other blocks');
    // A JSON text too long for the text part is cut there: the structured content is its only whole copy.
    const long = { rows: Array.from({ length: 2000 }, (_, i) => ({ i })) };
    const cut = result([text(JSON.stringify(long, null, 2))], long);
    assert.match(cut.text, /more characters cut/);
    assert.ok(JSON.stringify(long).length <= MAX_RESULT_CHARS, 'short enough as compact JSON (else this test cannot fail)');
    assert.deepEqual(cut.data.structuredContent, long);
  });

  it('an isError result, a JSON-RPC error and a missing result are told apart', () => {
    const failed = task({ status: 'failed', hasResult: true });
    const isError = formatResult({ task: failed, done: true, outcome: { kind: 'result', result: { content: [{ type: 'text', text: 'lint: 2 errors' }], isError: true } } }, { seconds: 0, capped: false });
    assert.match(isError.text, /The tool reported an error \(isError\)\. Its output:\nlint: 2 errors/);
    assert.equal(isError.data.isError, true);
    const rpc = formatResult({ task: failed, done: true, outcome: { kind: 'error', error: { code: -32603, message: 'boom', data: { file: 'x' } } } }, { seconds: 0, capped: false });
    assert.match(rpc.text, /JSON-RPC error -32603: boom\nError data: \{"file":"x"\}/);
    assert.deepEqual(rpc.data.error, { code: -32603, message: 'boom', data: { file: 'x' } });
    const none = formatResult({ task: task({ status: 'expired' }), done: true, fetchError: 'The task is expired and no result was fetched before' }, { seconds: 0, capped: false });
    assert.match(none.text, /No result: The task is expired/);
  });

  describe('-32042 (a step in the browser first): the message and the domain, never the URL', () => {
    const url = 'https://auth.example.com/connect?account=octo&return=https%3A%2F%2Fapp.example%2Fdone';
    const urlError = (elicitations: unknown[]) => ({ code: -32042, message: 'This request requires more information.', data: { elicitations } });
    const step = { mode: 'url', message: 'Sign in to connect octo', url, elicitationId: 'e-1' };
    const noUrl = (text: string, data?: unknown) => assert.ok(!/https?:|javascript:/.test(text + JSON.stringify(data)), `no URL reaches the model: ${text} ${JSON.stringify(data)}`);
    const error = { code: -32042, message: 'This request requires more information.', data: undefined };

    it('a task whose result is the error: what to do in the browser, and that Open Result in the view offers it', () => {
      const a = formatResult({ task: task({ status: 'failed', hasResult: true }), done: true, outcome: { kind: 'error', error: urlError([step, { ...step, message: 'Approve access', elicitationId: 'e-2' }]) } }, { seconds: 0, capped: false });
      noUrl(a.text, a.data);
      assert.match(
        a.text,
        /\nThe server answered with JSON-RPC error -32042: This request requires more information\.\nThe user must first complete in their browser: Sign in to connect octo \(auth\.example\.com\); Approve access \(auth\.example\.com\)\. Open Result on this task in the MCP Tasks view opens the URL with their consent, then runs the tool again\.$/,
      );
      assert.deepEqual(a.data.error, error);
    });

    it('a task found through tasks/list (its call unknown) points to Run Tool as Task instead', () => {
      const a = formatResult({ task: task({ status: 'failed', origin: 'server-list' }), done: true, outcome: { kind: 'error', error: urlError([step]) } }, { seconds: 0, capped: false });
      assert.match(a.text, /\. Run Tool as Task in the MCP Tasks view opens the URL with their consent, then runs the tool again\.$/);
    });

    it('unusable data (a javascript: URL) is not pasted', () => {
      const a = formatResult({ task: task({ status: 'failed' }), done: true, outcome: { kind: 'error', error: urlError([{ ...step, url: 'javascript:alert(1)' }]) } }, { seconds: 0, capped: false });
      noUrl(a.text, a.data);
      assert.match(a.text, /\nThe server answered with JSON-RPC error -32042: This request requires more information\.$/);
      assert.deepEqual(a.data.error, error);
    });

    it('mcpTasks_startTask refused: no task started, the step, and what the user can do', () => {
      const r = urlsRequired(urlError([step]));
      assert.ok(r?.ok);
      const text = browserRefusal('This request requires more information.', r.plans);
      noUrl(text);
      assert.equal(
        text,
        'This request requires more information. No task was started. The user must first complete in their browser: Sign in to connect octo (auth.example.com). Run Tool as Task in the MCP Tasks view opens the URL with their consent, then runs the tool again.',
      );
    });
  });

  it('a task still running after the wait says so, and how long was waited', () => {
    const a = formatResult({ task: task({ statusMessage: 'Analyzing content...' }), done: false }, { seconds: 120, capped: true });
    assert.match(a.text, /^The task has not ended after waiting 120 s \(the longest wait allowed\)\.\nTask "t-1"/);
    assert.equal(a.data.done, false);
    assert.match(formatResult({ task: task(), done: false }, { seconds: 0, capped: false }).text, /^The task has not ended yet\./);
  });

  it('a server\'s megabyte status message, immediate response, progress message or error is cut in every answer, as a result is (the model\'s context is not flooded)', () => {
    const mb = 'x'.repeat(1_000_000);
    const t = task({ statusMessage: mb, immediateResponse: mb, note: mb, progress: { progress: 1, total: 2, message: mb } });
    const size = (a: { text: string; data: unknown }) => a.text.length + JSON.stringify(a.data).length;
    assert.ok(size(formatTask(t, 'Started.')) < 20_000, 'one task');
    assert.ok(size(formatTaskList(Array.from({ length: 20 }, () => t))) < 400_000, 'twenty tasks');
    const failed = task({ status: 'failed', statusMessage: mb, hasResult: true });
    const r = formatResult({ task: failed, done: true, outcome: { kind: 'error', error: { code: -32603, message: mb, data: { log: mb } } } }, { seconds: 0, capped: false });
    assert.ok(size(r) < 20_000, 'an error answer');
    assert.ok(size(formatResult({ task: t, done: true, fetchError: mb }, { seconds: 0, capped: false })) < 20_000, 'a fetch error');
    assert.match(formatTask(t).text, /x…/, 'cut with an ellipsis');
  });

  it('a huge result is cut, and says where the rest is', () => {
    const big = 'x'.repeat(MAX_RESULT_CHARS + 500);
    const a = formatResult({ task: task({ status: 'completed' }), done: true, outcome: { kind: 'result', result: { content: [{ type: 'text', text: big }], structuredContent: { blob: big } } } }, { seconds: 0, capped: false });
    assert.match(a.text, /\[… 500 more characters cut; the full result is in the MCP Tasks view\]$/);
    assert.ok(a.text.length < MAX_RESULT_CHARS + 1000);
    assert.match(String(a.data.structuredContent), /characters of structured content cut/);
  });

  it('a huge result cut where an emoji sits keeps no half of it, and counts what it left out', () => {
    const big = `${'x'.repeat(MAX_RESULT_CHARS - 1)}😀${'y'.repeat(499)}`;
    const a = formatResult({ task: task({ status: 'completed' }), done: true, outcome: { kind: 'result', result: { content: [{ type: 'text', text: big }] } } }, { seconds: 0, capped: false });
    const [kept, told] = a.text.slice(a.text.indexOf('x')).split('\n[… ');
    assert.equal(kept, 'x'.repeat(MAX_RESULT_CHARS - 1), 'the emoji is left out whole');
    assert.equal(told, `${big.length - kept.length} more characters cut; the full result is in the MCP Tasks view]`);
  });
});
