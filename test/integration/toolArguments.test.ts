// The arguments and ttl steps of "Run Tool as Task...", inside the real extension host: a form
// built from the tool's inputSchema (typed values reach the server), the JSON box where no form
// fits, the ttl reaching the server as `task.ttl`, and Escape running nothing. The tools of
// test/fixtures/servers/schema-server.mjs (added through the mcpTasks.servers setting) echo what they got.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../api/mcp-tasks';
import { activateExtension, removeSettingServers, serverIdOf, testingApi, waitFor } from './helpers';
import type { McpTasksTestingApi, TreeSnapshotNode as Row } from './helpers';
import { QuickInputSpy, accept, back, choose, chooseTtl, enter, escape, fieldOf, fillArguments, hasBack } from './quickInputs';
import { cleanUp, publicApi } from './taskApiHelpers';

/** out/test/integration -> the fixture in the sources. */
const SCHEMA_SERVER = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'servers', 'schema-server.mjs');
const SLOW_TASK_SERVER = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'servers', 'slow-task.mjs');

suite('Run Tool as Task: arguments from the input schema, and the ttl', () => {
  let testing: McpTasksTestingApi;
  let api: McpTasksApi;
  let spy: QuickInputSpy;
  const settings = () => vscode.workspace.getConfiguration('mcpTasks');
  /** slow-schemas notes each start's pid here, and reads nothing until its release (SIGUSR2). */
  const heldStarts = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-held-')), 'starts');
  const starts = () => (fs.existsSync(heldStarts) ? fs.readFileSync(heldStarts, 'utf8').trim().split('\n') : []);
  /** Lets the start of slow-schemas after the first `before` go on: the server answers from then. */
  const releaseStart = async (before: number) => {
    const pid = await waitFor(() => starts()[before], 'slow-schemas to be started (its pid in the log of held starts)');
    process.kill(Number(pid), 'SIGUSR2');
  };

  const server = async (label: string) => {
    const row = ((await testing.getTreeSnapshot()) as Row[]).find((r) => r.label === label && serverIdOf(r) !== undefined);
    assert.ok(row?.id, `no server row labelled ${label}`);
    return row;
  };
  const taskIds = async (label: string) => new Set(((await server(label)).children ?? []).filter((r) => r.id?.startsWith('task:')).map((r) => r.id!.slice('task:'.length)));

  /**
   * Starts Run Tool as Task from the server's row and picks the tool; the caller answers the rest.
   * The server is chosen already: the steps are counted from the tool pick, 1 of 3 (the arguments
   * 2/3, the ttl 3/3) on demo; of 2 on a server whose tools all take a step less: schemas' are
   * direct calls (the arguments 2/2), slow-task's one task takes no arguments (the ttl 2/2), where
   * the pick said 1/3 and the next step 2/2. Its Back shows the server pick (see the test of the
   * view's title button).
   */
  async function start(serverLabel: string, toolName: string) {
    const before = await taskIds(serverLabel);
    const id = serverIdOf(await server(serverLabel))!;
    spy.skipShown();
    const done = vscode.commands.executeCommand('mcpTasks.runToolAsTask', { kind: 'server', id });
    const pick = await spy.next('the tool pick', 30_000);
    assert.equal(pick.title, `Run Tool as Task (1/${serverLabel === 'demo' ? 3 : 2}): tool of ${serverLabel}`);
    assert.ok(hasBack(pick), 'the tool pick goes back to the server pick');
    await choose(pick, (i) => i.label === toolName || (i.description ?? '').startsWith(`${toolName} · `), toolName);
    /** The id (public API) of the task the command started. */
    const started = async () => {
      await done;
      return waitFor(async () => [...(await taskIds(serverLabel))].find((t) => !before.has(t)), `a new task of ${toolName}`);
    };
    /** The command ended without starting anything. */
    const nothing = async () => {
      await done;
      assert.deepEqual(await taskIds(serverLabel), before, 'no task was started');
    };
    return { started, nothing };
  }

  /** What the schema server received, from the result of its call. */
  const received = async (id: string) => {
    const r = await api.getResult(id, { waitSeconds: 10 });
    assert.equal(r.outcome?.kind, 'result', JSON.stringify(r));
    return (r.outcome.kind === 'result' && r.outcome.result.structuredContent?.received) as Record<string, unknown>;
  };

  suiteSetup(async function () {
    this.timeout(30_000);
    testing = testingApi(await activateExtension());
    api = await publicApi();
    spy = new QuickInputSpy();
    await settings().update(
      'servers',
      {
        schemas: { type: 'stdio', command: 'node', args: [SCHEMA_SERVER] },
        'slow-schemas': { type: 'stdio', command: 'node', args: [SCHEMA_SERVER, '--held-start', heldStarts] },
        'slow-tasks': { type: 'stdio', command: 'node', args: [SLOW_TASK_SERVER, '--answer-after', '3000'] },
        // Its own, so that no live task of another test is counted with the call on its way.
        'slow-start': { type: 'stdio', command: 'node', args: [SLOW_TASK_SERVER, '--answer-after', '3000'] },
      },
      vscode.ConfigurationTarget.Global,
    );
    await waitFor(async () => ((await testing.getTreeSnapshot()) as Row[]).some((r) => r.label === 'schemas'), 'the schemas server row');
  });

  suiteTeardown(async () => {
    spy?.dispose();
    await cleanUp(api, api.getTasks().map((t) => t.id));
    await removeSettingServers();
    fs.rmSync(path.dirname(heldStarts), { recursive: true, force: true });
  });

  test('A flat schema is asked field by field; numbers and yes/no reach the server typed, an empty optional field is left out', async function () {
    this.timeout(30_000);
    const run = await start('schemas', 'configure');
    const asked = await fillArguments(spy, 'configure', { name: 'widget', count: '7', ratio: '0.5', verbose: 'Yes', level: 'high' }, undefined, '2/2');
    assert.deepEqual(asked, ['name', 'count', 'ratio', 'verbose', 'level', 'note'], 'one step per property, in order');
    const steps = spy.shown.filter((s) => s.title === 'Run Tool as Task (2/2): arguments of configure');
    assert.equal(steps[1].value, '3', 'the count field starts at its default');
    assert.deepEqual(steps[3].items.map((i) => i.label), ['Yes', 'No'], 'a required yes/no field offers no Skip');
    assert.deepEqual(steps[4].items.map((i) => i.label), ['low', 'high'], 'an enum is a pick of its values');
    const review = steps[6];
    const labels = review.items.map((i) => `${i.icon} ${i.label}`);
    // Cancel ends the list, after a Change item per field: it does not sit between the actions and the changes.
    assert.deepEqual([labels.slice(0, 2), labels.at(-1)], [['play Run configure', 'json Edit as JSON…'], 'close Cancel'], JSON.stringify(labels));
    assert.equal(labels.slice(2, -1).filter((l) => l.startsWith('edit Change ')).length, 6, JSON.stringify(labels));
    assert.ok(!review.items.some((i) => /Decline/.test(i.label)), 'a tool call has nothing to decline');
    // A plain tool: it runs at once, without a ttl step.
    const id = await run.started();
    assert.deepEqual(await received(id), { name: 'widget', count: 7, ratio: 0.5, verbose: true, level: 'high' });
  });

  test('A server\'s text makes no link, icon or reversed line: in the tool pick, the form\'s prompt and the failure\'s notification (a `command:` link there ran the command at a click)', async function () {
    this.timeout(30_000);
    const id = serverIdOf(await server('schemas'))!;
    spy.skipShown();
    const done = vscode.commands.executeCommand('mcpTasks.runToolAsTask', { kind: 'server', id });
    const pick = await spy.next('the tool pick', 30_000);
    const tool = pick.items.find((i) => i.description?.startsWith('hostile-text  · '));
    assert.deepEqual(
      [tool?.label, tool?.detail],
      ['\\$(verified-filled) Verified  [Open] (command:workbench.action.openSettings?%5B%22x%22%5D)', 'From [the docs] (https://example.com/a)'],
      'as the editor escapes them: `\\$(` is no icon, and a space makes no link',
    );
    await choose(pick, (i) => i === tool, 'hostile-text');
    const note = await spy.next('the note field');
    assert.equal(note.box?.prompt, `${tool?.label} — note (optional): See [this] (command:workbench.action.openSettings) \\$(key)`);
    await accept();
    const messages = spy.messages.length;
    await choose(await spy.next('the review step'), (i) => i.label.endsWith('Run hostile-text '), 'Run hostile-text');
    await done;
    const told = await waitFor(() => spy.messages.slice(messages).find((m) => m.includes('Show the log')), 'the failure\'s notification');
    // A notification draws no icons: the server's `$(error)` reads as sent, not `\$(error)`.
    assert.match(told, /\[Show the log\] \(command:workbench\.action\.openSettings\?%5B%22x%22%5D\) \$\(error\)/);
    // Its row's tooltip is Markdown with the editor's icons on, where `$\(error\)` (escaped as before) still drew one.
    // Its row (a tree draws no icon or link) reads on one line: the U+202E that ends the tool's name would turn "Failed · now" around.
    const row = (await server('schemas')).children?.find((c) => c.label.startsWith('hostile-text')) as (Row & { tooltip?: string }) | undefined;
    assert.equal(row?.label, 'hostile-text ');
    assert.ok(row?.tooltip?.includes('\\\\$\\(error\\)'), row?.tooltip);
  });

  test('A required yes/no without a default has neither answer focused: Enter answers nothing until one is chosen (it sent Yes), and says to pick one (it said nothing); a number enum is a pick whose number reaches the server', async function () {
    this.timeout(30_000);
    const run = await start('schemas', 'choices');
    const dry = await spy.next('the dry field');
    assert.deepEqual([fieldOf(dry), dry.items.map((i) => i.label)], ['dry', ['Yes', 'No']]);
    await accept(); // Enter, nothing chosen
    assert.deepEqual(dry.pick?.activeItems.map((i) => i.label), [], 'no answer is focused, and Enter took none');
    await waitFor(() => dry.pick?.placeholder?.startsWith('⚠'), `a warning in the placeholder, not "${dry.text}": Enter took nothing`);
    assert.equal(dry.pick?.placeholder, `⚠ Pick one: ${dry.text}`);
    await choose(dry, (i) => i.label === 'No', 'No');
    const prio = await spy.next('the prio field');
    assert.deepEqual([fieldOf(prio), prio.items.map((i) => i.label)], ['prio', ['1', '2', '3']], 'a pick of the enum\'s numbers, not a free number box');
    await choose(prio, (i) => i.label === '2', '2');
    const review = await spy.next('the review step');
    await choose(review, (i) => i.label.endsWith('Run choices'), 'Run choices');
    assert.deepEqual(await received(await run.started()), { dry: false, prio: 2 });
  });

  test('Edit as JSON… on the review step starts the JSON box from the answers and sends what is typed there', async function () {
    this.timeout(30_000);
    const run = await start('schemas', 'configure');
    const typed = { name: 'edited', verbose: false, level: 'low', extra: [1, { deep: true }] };
    await fillArguments(spy, 'configure', { name: 'widget', verbose: 'No', level: 'low' }, 'Edit as JSON…', '2/2');
    const box = await spy.next('the JSON box');
    assert.equal(box.kind, 'input');
    assert.equal(box.title, 'Run Tool as Task (2/2): arguments of configure');
    assert.deepEqual(JSON.parse(box.value ?? ''), { name: 'widget', count: 3, verbose: false, level: 'low' }, 'the answers so far, defaults included');
    await enter(box, JSON.stringify(typed));
    const id = await run.started();
    assert.deepEqual(await received(id), typed);
  });

  test('the JSON box of Edit as JSON… refuses what the form would: a required field left out, a value of the wrong type (the server refused it after the call, MCP error -32602); keys the form has not are sent', async function () {
    this.timeout(30_000);
    const run = await start('schemas', 'configure');
    await fillArguments(spy, 'configure', { name: 'widget', verbose: 'No', level: 'low' }, 'Edit as JSON…', '2/2');
    const box = await spy.next('the JSON box');
    await enter(box, '{"name": "w", "verbose": false, "level": "low", "count": "x"}');
    await waitFor(() => box.box?.validationMessage, 'the box to refuse a count of "x"');
    assert.match(String(box.box?.validationMessage), /"count": Enter a whole number/);
    await enter(box, '{"name": "w", "level": "low"}');
    await waitFor(() => /"verbose" is required/.test(String(box.box?.validationMessage)), 'the box to refuse a missing verbose');
    await enter(box, '{"name": "w", "verbose": true, "level": "high", "extra": 1}');
    assert.deepEqual(await received(await run.started()), { name: 'w', verbose: true, level: 'high', extra: 1 });
  });

  test('An array of free strings or numbers is one field of comma-separated values (or a JSON array), starting at its default; the server receives real arrays of the right types', async function () {
    this.timeout(30_000);
    const run = await start('schemas', 'tag-files');
    const paths = await spy.next('the paths field');
    assert.deepEqual([paths.kind, paths.text, paths.value], ['input', 'tag-files — paths (Values separated by commas, or a JSON array of at least 1 value)', ''], 'the prompt says how to type a list');
    await enter(paths, ' src/a.ts , docs');
    const counts = await spy.next('the counts field');
    assert.deepEqual([counts.kind, counts.value], ['input', '1, 2'], 'the default is shown comma-joined');
    await enter(counts, '[3, 4]');
    const review = await spy.next('the review step');
    assert.deepEqual(review.items.filter((i) => i.label.startsWith('Change')).map((i) => i.description), ['src/a.ts, docs', '3, 4'], 'the review shows the lists');
    await choose(review, (i) => i.label.endsWith('Run tag-files'), 'Run tag-files');
    assert.deepEqual(await received(await run.started()), { paths: ['src/a.ts', 'docs'], counts: [3, 4] });
  });

  test('Draft 4\'s boolean `exclusiveMinimum: true` gets a form, not the JSON box: its minimum is exclusive, as the field says and checks', async function () {
    this.timeout(30_000);
    const run = await start('schemas', 'draft4-bounds');
    const count = await spy.next('the count field');
    assert.deepEqual([count.kind, fieldOf(count), count.box?.placeholder], ['input', 'count', 'Enter a whole number greater than 0 and at most 10']);
    await enter(count, '0');
    await waitFor(() => count.box?.validationMessage, 'the box to refuse 0');
    assert.match(String(count.box?.validationMessage), /Enter a whole number greater than 0 and at most 10/);
    await enter(count, '1');
    const review = await spy.next('the review step');
    await choose(review, (i) => i.label.endsWith('Run draft4-bounds'), 'Run draft4-bounds');
    assert.deepEqual(await received(await run.started()), { count: 1 });
  });

  test('A nested schema falls back to a JSON box that says why (properties that are not schema objects, `true` or `null`, listed by name); the typed object reaches the server', async function () {
    this.timeout(30_000);
    const typed = { target: { region: 'eu-west', replicas: 2 }, tags: ['a', 'b'], strategy: 'rolling' };
    const run = await start('schemas', 'deploy-nested');
    const box = await spy.next('the JSON box');
    assert.equal(box.kind, 'input');
    assert.equal(box.title, 'Run Tool as Task (2/2): arguments of deploy-nested');
    // Why, worded as what a form shows (not as a fault of the tool), and each property's type and whether it is required.
    assert.equal(
      box.text,
      'Arguments as a JSON object (no form for this tool: property "target" is a nested object: a form shows only flat objects of primitive properties). Properties: target (object, required), tags (array), strategy (string, required), anything, legacy',
    );
    assert.deepEqual(JSON.parse(box.value ?? ''), { target: {}, strategy: 'rolling' }, 'starts from the required properties, a const as its value');
    // Checked as far as a form would check each property (a nested one only for being there), each named by its key: Enter is refused until it is right.
    await enter(box, '{"strategy": "fast", "tags": "a"}');
    await waitFor(() => box.box?.validationMessage, 'the box to refuse the arguments');
    assert.equal(box.box?.validationMessage, '"target" is required; "tags": Enter a JSON array; "strategy": Choose one of: rolling');
    await enter(box, JSON.stringify(typed));
    const id = await run.started();
    assert.deepEqual(await received(id), typed);
  });

  test('The tool pick says how each tool runs in words only; its icon is the row\'s (iconPath), as `$(icon)` in a text is read out by name ("arrow-right direct call only")', async () => {
    const id = serverIdOf(await server('schemas'))!;
    spy.skipShown();
    const done = vscode.commands.executeCommand('mcpTasks.runToolAsTask', { kind: 'server', id });
    const pick = await spy.next('the tool pick', 30_000);
    const configure = pick.items.find((i) => i.label === 'configure');
    assert.deepEqual([configure?.icon, configure?.description], ['arrow-right', 'direct call only'], JSON.stringify(pick.items));
    // `\$(` is a server's `$(` kept as text (see the test of a server's text).
    assert.deepEqual(pick.items.filter((i) => /(^|[^\\])\$\(/.test(`${i.label} ${i.description ?? ''}`) || !i.icon), [], 'no item has an icon in its text, each has one as iconPath');
    await escape();
    await done;
  });

  test('Escape on a field of the form runs nothing', async () => {
    const run = await start('schemas', 'configure');
    const first = await spy.next('the first field');
    assert.equal(first.title, 'Run Tool as Task (2/2): arguments of configure');
    await escape();
    await run.nothing();
  });

  test('The ttl step: Default keeps mcpTasks.defaultTtlSeconds; a choice and a custom duration reach the server as task.ttl; it says the server may keep them for less', async function () {
    this.timeout(60_000);
    const expect = [
      { choice: 'Default', ttl: 3600_000 },
      { choice: '10 min', ttl: 600_000 },
      { choice: 'Custom…', typed: '2h', ttl: 7_200_000 },
    ];
    for (const { choice, typed, ttl } of expect) {
      const run = await start('demo', 'build-project');
      await fillArguments(spy, 'build-project', { durationMs: '300' });
      const pick = await chooseTtl(spy, 'build-project', choice);
      // The question shows once, in the box: one longer than 60 characters was shown again under it as the pick's prompt.
      assert.equal(pick.text, 'How long should the server keep the task and its result?');
      // Under it, not repeated: the server may grant less than asked (T-RCV-7; the demo keeps a scan 30 s), which "10 min" did not tell.
      assert.equal((pick.pick as { prompt?: string } | undefined)?.prompt, 'The server may keep them for less.', 'the prompt says so, and does not repeat the question');
      assert.match(pick.items[0].description ?? '', /^1 h, from the setting mcpTasks\.defaultTtlSeconds$/);
      // Every duration is written alike, as Default's "1 h" is (it read "1 h" beside "10 minutes"); the default is not offered twice.
      // Every choice has its icon, so the labels line up (Default and Custom… had one, the durations none).
      assert.deepEqual(pick.items.map((i) => [i.icon, i.label]), [['history', 'Default'], ['clock', '10 min'], ['clock', '24 h'], ['edit', 'Custom…']]);
      if (typed) {
        const box = await spy.next('the custom ttl box');
        assert.equal(box.title, 'Run Tool as Task (3/3): how long to keep build-project');
        assert.match(box.text ?? '', /^How long the server should keep the task \(it may keep it for less\): /);
        await enter(box, typed);
      }
      const id = await run.started();
      // The demo server keeps a build for the ttl asked (it reports it in CreateTaskResult and tasks/get).
      assert.equal(api.getTask(id)?.ttl, ttl, `${choice}: task.ttl`);
      assert.deepEqual(api.getTask(id)?.arguments, { project: 'demo-app', durationMs: 300 }, 'the default project and the typed duration, as a number');
    }
  });

  test('The ttl step: Default says the setting\'s ttl exactly ("90 s", not "1 min"), and that ttl reaches the server', async function () {
    this.timeout(60_000);
    await settings().update('defaultTtlSeconds', 90, vscode.ConfigurationTarget.Global);
    try {
      const run = await start('demo', 'build-project');
      await fillArguments(spy, 'build-project', { durationMs: '300' });
      const pick = await chooseTtl(spy, 'build-project', 'Default');
      assert.equal(pick.items[0].description, '90 s, from the setting mcpTasks.defaultTtlSeconds');
      assert.equal(api.getTask(await run.started())?.ttl, 90_000);
    } finally {
      await settings().update('defaultTtlSeconds', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  test('Back on each step shows the step before with what was chosen there: ttl → arguments (their review) → tool → server; a field changed from the review → the review', async function () {
    this.timeout(60_000);
    const before = await taskIds('demo');
    spy.skipShown();
    const done = vscode.commands.executeCommand('mcpTasks.runToolAsTask');
    const title = (n: number, what: string) => `Run Tool as Task (${n}/4): ${what}`;

    let s = await spy.next('the server pick', 30_000);
    assert.equal(s.title, title(1, 'server'));
    assert.ok(!hasBack(s), 'the first step has nothing to go back to');
    await choose(s, (i) => i.label === 'demo', 'demo');
    s = await spy.next('the tool pick', 30_000);
    assert.equal(s.title, title(2, 'tool of demo'));
    assert.ok(hasBack(s), 'the tool step goes back to the server');
    await back();
    s = await spy.next('the server pick again');
    assert.equal(s.title, title(1, 'server'));
    assert.equal(s.pick?.activeItems[0]?.label, 'demo', 'the server chosen before is focused');
    await choose(s, (i) => i.label === 'demo', 'demo');
    s = await spy.next('the tool pick again');
    await choose(s, (i) => (i.description ?? '').startsWith('build-project · '), 'build-project');

    s = await spy.next('the first field');
    assert.equal(s.title, title(3, 'arguments of build-project'));
    assert.ok(hasBack(s), 'the first field goes back to the tool');
    await back();
    s = await spy.next('the tool pick after Back');
    assert.equal(s.title, title(2, 'tool of demo'));
    assert.equal(s.pick?.activeItems[0]?.description?.split(' · ')[0], 'build-project', 'the tool chosen before is focused');
    await accept();
    await fillArguments(spy, 'build-project', { durationMs: '300' }, undefined, '3/4');

    s = await spy.next('the ttl pick');
    assert.equal(s.title, title(4, 'how long to keep build-project'));
    assert.ok(hasBack(s), 'the ttl step goes back to the arguments');
    await back();
    s = await spy.next('the review step of the arguments');
    assert.equal(s.title, title(3, 'arguments of build-project'));
    const change = s.items.find((i) => /Change .*durationMs|Change Total build time/i.test(i.label));
    assert.equal(change?.description, '300', `the arguments given before: ${JSON.stringify(s.items)}`);
    // Changing the first field from the review step: Back returns to the review, not to the tool.
    await choose(s, (i) => /Change project$/.test(i.label), 'Change project');
    s = await spy.next('the first field, changed from the review');
    assert.equal(s.kind, 'input');
    assert.ok(hasBack(s), 'the field changed from the review offers Back');
    await back();
    s = await spy.next('the review step after Back');
    assert.equal(s.title, title(3, 'arguments of build-project'));
    assert.equal(s.items.find((i) => /Change .*durationMs|Change Total build time/i.test(i.label))?.description, '300', 'the answers are kept');
    await choose(s, (i) => i.label.endsWith('Run build-project'), 'Run build-project');
    await chooseTtl(spy, 'build-project', '10 min', '4/4');

    await done;
    const id = await waitFor(async () => [...(await taskIds('demo'))].find((t) => !before.has(t)), 'the new build task');
    assert.deepEqual(api.getTask(id)?.arguments, { project: 'demo-app', durationMs: 300 });
    assert.equal(api.getTask(id)?.ttl, 600_000);
  });

  test('Started from a server\'s row, as the view\'s title button is when that row has the focus, Back on the tool pick shows the server pick (that server focused), and the steps are counted of 4, then of the most a tool of the server picked takes', async function () {
    this.timeout(30_000);
    const build = await start('demo', 'build-project');
    await spy.next('the first field');
    await back();
    let s = await spy.next('the tool pick after Back');
    await back();
    s = await spy.next('the server pick');
    assert.equal(s.title, 'Run Tool as Task (1/4): server');
    assert.equal(s.pick?.activeItems[0]?.label, 'demo', 'the server of the row is focused');
    await choose(s, (i) => i.label === 'schemas', 'schemas');
    s = await spy.next('the tool pick of the server picked');
    assert.equal(s.title, 'Run Tool as Task (2/3): tool of schemas', 'of 3: its tools are direct calls, with no ttl step');
    await escape();
    await build.nothing();
  });

  test('Back from the JSON box returns to the tool pick; Back from the custom ttl box returns to the ttl pick', async function () {
    this.timeout(30_000);
    const nested = await start('schemas', 'deploy-nested');
    let s = await spy.next('the JSON box');
    assert.equal(s.kind, 'input');
    assert.ok(hasBack(s), 'the JSON box offers Back');
    await back();
    s = await spy.next('the tool pick after Back');
    assert.equal(s.title, 'Run Tool as Task (1/2): tool of schemas');
    assert.equal(s.pick?.activeItems[0]?.label, 'deploy-nested', 'the tool chosen before is focused');
    await escape();
    await nested.nothing();

    const build = await start('demo', 'build-project');
    await fillArguments(spy, 'build-project', {});
    await chooseTtl(spy, 'build-project', 'Custom…');
    s = await spy.next('the custom ttl box');
    assert.ok(hasBack(s), 'the custom ttl box offers Back');
    await back();
    s = await spy.next('the ttl pick after Back');
    assert.equal(s.title, 'Run Tool as Task (3/3): how long to keep build-project');
    assert.ok(s.items[0]?.label.endsWith('Default'));
    await escape();
    await build.nothing();
  });

  test('While a server picked in the first step connects, its pick stays up, busy and disabled', async function () {
    this.timeout(30_000);
    // Not connected, whatever ran before: the pick is busy only while the server starts.
    const id = serverIdOf(await server('slow-schemas'))!;
    await vscode.commands.executeCommand('mcpTasks.disconnectServer', { kind: 'server', id, confirmed: true });
    const before = starts().length;
    spy.skipShown();
    const done = vscode.commands.executeCommand('mcpTasks.runToolAsTask');
    const s = await spy.next('the server pick', 30_000);
    await choose(s, (i) => i.label === 'slow-schemas', 'slow-schemas');
    // The server reads nothing until released: it is still starting whatever the machine's speed.
    await waitFor(() => s.pick?.busy === true && s.pick.enabled === false, 'the server pick busy while the server starts (held until released)');
    await releaseStart(before);
    const tools = await spy.next('the tool pick', 30_000);
    assert.equal(tools.title, 'Run Tool as Task (2/3): tool of slow-schemas');
    await escape();
    await done;
  });

  test('Escape on the server pick while the picked server connects runs nothing: no tool pick follows', async function () {
    this.timeout(30_000);
    const id = serverIdOf(await server('slow-schemas'))!;
    await vscode.commands.executeCommand('mcpTasks.disconnectServer', { kind: 'server', id, confirmed: true });
    const before = starts().length;
    spy.skipShown();
    const done = vscode.commands.executeCommand('mcpTasks.runToolAsTask');
    const s = await spy.next('the server pick', 30_000);
    await choose(s, (i) => i.label === 'slow-schemas', 'slow-schemas');
    await waitFor(() => s.pick?.busy === true, 'the server pick busy while the server starts (held until released)');
    const shown = spy.shown.length;
    await escape();
    // The command ends without waiting for the connection (held until after it), and nothing pops up after it.
    await done;
    assert.match((await server('slow-schemas')).description ?? '', /^connecting/, 'the command ended while the server still starts');
    await releaseStart(before);
    await waitFor(async () => (await server('slow-schemas')).description?.startsWith('connected'), 'the connection (which goes on) to be up', 20_000);
    assert.deepEqual(spy.shown.slice(shown).map((x) => x.title), [], 'no quick input after Escape');
  });

  test('Started from a server\'s row, the "Connecting to…" notification can be cancelled: no tool pick follows, nothing is said, and the connection goes on', async function () {
    this.timeout(30_000);
    const id = serverIdOf(await server('slow-schemas'))!;
    await vscode.commands.executeCommand('mcpTasks.disconnectServer', { kind: 'server', id, confirmed: true });
    const before = starts().length;
    const w = vscode.window as unknown as Record<string, unknown>;
    const withProgress = w.withProgress as typeof vscode.window.withProgress;
    const progress: string[] = [];
    // The notification's Cancel button, which the host cannot click: pressed here, 100 ms in.
    w.withProgress = <R>(options: vscode.ProgressOptions, task: (p: vscode.Progress<{ message?: string }>, token: vscode.CancellationToken) => Thenable<R>) => {
      if (!options.title?.startsWith('Connecting to')) return withProgress.call(vscode.window, options, task);
      progress.push(`${options.title} | cancellable: ${options.cancellable}`);
      const cancel = new vscode.CancellationTokenSource();
      setTimeout(() => cancel.cancel(), 100);
      return task({ report: () => undefined }, cancel.token);
    };
    spy.skipShown();
    spy.messages.length = 0;
    const shown = spy.shown.length;
    try {
      await vscode.commands.executeCommand('mcpTasks.runToolAsTask', { kind: 'server', id });
    } finally {
      w.withProgress = withProgress;
    }
    assert.deepEqual(progress, ['Connecting to "slow-schemas"… | cancellable: true']);
    assert.match((await server('slow-schemas')).description ?? '', /^connecting/, 'the command ended while the server still starts (held until released)');
    await releaseStart(before);
    await waitFor(async () => (await server('slow-schemas')).description?.startsWith('connected'), 'the connection (which goes on) to be up', 20_000);
    assert.deepEqual(spy.shown.slice(shown).map((x) => x.title), [], 'no tool pick after Cancel');
    assert.deepEqual(spy.messages, [], 'the user cancelled: no error, no message');
  });

  test('The ttl step stays up, busy and disabled, until the server answers tools/call; then the task shows', async function () {
    this.timeout(30_000);
    const run = await start('slow-tasks', 'slow');
    const ttl = await spy.next('the ttl pick');
    // A tool without arguments has no arguments step: its ttl is the second step of two.
    assert.equal(ttl.title, 'Run Tool as Task (2/2): how long to keep slow');
    await accept();
    await waitFor(() => ttl.pick?.busy === true && ttl.pick.enabled === false, 'the ttl pick busy while tools/call is on its way');
    await run.started();
  });

  test('Disconnect Server while a tool runs as a task but its server has not answered tools/call yet asks first, and says that task is lost, not that it is a call made without one', async function () {
    this.timeout(30_000);
    const run = await start('slow-start', 'slow');
    const ttl = await spy.next('the ttl pick');
    await accept();
    await waitFor(() => ttl.pick?.busy === true, 'tools/call on its way');
    const w = vscode.window as unknown as Record<string, unknown>;
    const showWarning = w.showWarningMessage;
    const modal: string[] = [];
    // A modal dialog the host cannot click: answered Cancel here.
    w.showWarningMessage = (message: string, options: vscode.MessageOptions, ...items: string[]) => (modal.push(`${message} | ${options.detail} | ${items.join(', ')}`), Promise.resolve(undefined));
    try {
      await vscode.commands.executeCommand('mcpTasks.disconnectServer', { kind: 'server', id: serverIdOf(await server('slow-start')) });
    } finally {
      w.showWarningMessage = showWarning;
    }
    assert.deepEqual(modal, [
      'Disconnect "slow-start"? Its running call will be lost. | The server has not yet answered the call that starts its task, and the answer would come on this connection. | Disconnect',
    ]);
    await run.started();
  });

  test('A call that times out names its server and says which setting gives it longer, with the log a click away', async function () {
    this.timeout(30_000);
    await settings().update('requestTimeoutSeconds', 1, vscode.ConfigurationTarget.Global);
    try {
      const run = await start('slow-tasks', 'slow');
      await spy.next('the ttl pick');
      spy.messages.length = 0;
      await accept();
      await waitFor(() => spy.messages.length > 0, 'the error message');
      assert.deepEqual(spy.messages, [
        'Could not run "slow" on slow-tasks: Request tools/call timed out after 1000 ms without an answer. If the server needs longer, raise the setting "mcpTasks.requestTimeoutSeconds".',
      ]);
      assert.deepEqual(spy.messageItems.at(-1), ['Show Log', 'Open Settings']);
      await run.nothing();
    } finally {
      await settings().update('requestTimeoutSeconds', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  test('Escape on the ttl step runs nothing', async () => {
    const run = await start('demo', 'build-project');
    await fillArguments(spy, 'build-project', {});
    await spy.next('the ttl pick');
    await escape();
    await run.nothing();
  });
});
