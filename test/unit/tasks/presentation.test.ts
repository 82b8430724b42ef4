// How a task's row reads: its description leads with how a finished task ended and says why.
import * as assert from 'node:assert/strict';
import { askedTitle, describeHosted, describeTask, formatDuration, formatRowAge, runTitle, runTitles, taskTitle, toolRunWords, ttlRow } from '../../../src/core/tasks/presentation';
import { snapshot } from '../helpers/snapshots';

const CREATED = Date.parse('2025-01-01T00:00:00.000Z');

const task = snapshot;

describe('describeTask', () => {
  it('shows a live task by its status message and progress', () => {
    assert.equal(describeTask(task({ statusMessage: 'Generating report…', progress: { progress: 2, total: 6 } }), CREATED + 5 * 60_000), 'Generating report… · 2/6 · 5 min');
    assert.equal(describeTask(task({}), CREATED + 42_000), 'Working · now');
  });

  it('does not say the progress twice when the status message carries it ("Scanning… 40% (12 files) · 40%")', () => {
    assert.equal(describeTask(task({ statusMessage: 'Scanning… 40% (12 files)', progress: { progress: 40, total: 100 } }), CREATED), 'Scanning… 40% (12 files) · now');
    assert.equal(describeTask(task({ statusMessage: 'Step 2/6', progress: { progress: 2, total: 6 } }), CREATED), 'Step 2/6 · now');
    assert.equal(describeTask(task({ statusMessage: 'Scanning… 12 files', progress: { progress: 40, total: 100 } }), CREATED), 'Scanning… 12 files · 40% · now');
  });

  it("writes progress in the locale's digits, as every other count (\"1,500\", not \"1500\"); a message that carries it in plain digits still says it once", () => {
    const k = (n: number) => n.toLocaleString();
    assert.notEqual(k(1500), '1500', 'a locale that groups thousands (else this test cannot fail)');
    assert.equal(describeTask(task({ progress: { progress: 1500 } }), CREATED), `Working · ${k(1500)} · now`);
    assert.equal(describeTask(task({ progress: { progress: 2.5, total: 10 } }), CREATED), `Working · ${k(2.5)}/${k(10)} · now`);
    assert.equal(describeTask(task({ progress: { progress: 3000, total: 200 } }), CREATED), `Working · ${k(1500)}% · now`);
    assert.equal(describeTask(task({ statusMessage: 'Indexed 1500 files', progress: { progress: 1500 } }), CREATED), 'Indexed 1500 files · now');
  });

  it('says a live task\'s cancel is pending (sent, not answered yet, or unanswered when its server was disconnected): the last status the row shows is not the end; an ended one does not', () => {
    assert.equal(describeTask(task({ statusMessage: 'Generating report…', progress: { progress: 2, total: 6 }, cancelRequested: true }), CREATED), 'Generating report… · 2/6 · cancel requested · now');
    assert.equal(describeTask(task({ status: 'input_required', cancelRequested: true }), CREATED), 'Input required · cancel requested · now');
    assert.equal(describeTask(task({ status: 'cancelled', cancelRequested: true }), CREATED), 'Cancelled · now');
  });

  it('gives ages in minutes, "now" under one (rows are redrawn every 30 s: "2 s" would read so long after)', () => {
    assert.deepEqual([0, 1_000, 59_999, 60_000, 119_000, 2 * 3600_000].map((ms) => formatRowAge(ms)), ['now', 'now', 'now', '1 min', '1 min', '2 h']);
  });

  it('says a duration (a ttl) exactly, in one number, where an age is rounded: "90 s", not "1 min"; "100 ms", not "0 s"', () => {
    assert.deepEqual(
      [0, 100, 1_000, 1_500, 30_000, 60_000, 90_000, 3_600_000, 5_400_000, 86_400_000, 90_061_000, 172_800_000, 2_592_000_000, 100.6, 1_234.4].map(formatDuration),
      // Days from two on, as formatAge says them (a 30-day ttl is not "720 h"); a server's fraction of a millisecond is not said.
      ['0 ms', '100 ms', '1 s', '1.5 s', '30 s', '1 min', '90 s', '1 h', '90 min', '24 h', '90061 s', '2 d', '30 d', '101 ms', '1.234 s'],
    );
  });

  it('leads a finished task with how it ended, then its last message', () => {
    assert.equal(describeTask(task({ status: 'completed', statusMessage: 'Generating report…' }), CREATED + 60_000), 'Completed · Generating report… · 1 min');
  });

  it('does not say how a task ended twice: a message that says it already leads alone ("Cancelled by the user", not "Cancelled · Cancelled by the user"), as a hosted row does', () => {
    assert.equal(describeTask(task({ status: 'cancelled', statusMessage: 'Cancelled by the user' }), CREATED), 'Cancelled by the user · now');
    assert.equal(describeTask(task({ status: 'cancelled', statusMessage: 'Cancelled' }), CREATED), 'Cancelled · now');
    assert.equal(describeTask(task({ status: 'cancelled', statusMessage: 'Stopped by admin' }), CREATED), 'Cancelled · Stopped by admin · now');
  });

  it('says why a task is lost or expired, not the stale message the server sent while it still had it', () => {
    const why = "The server's process that ran it is gone; a new process does not know its tasks.";
    assert.equal(describeTask(task({ status: 'lost', statusMessage: 'Generating report…', note: why }), CREATED + 60_000), `Lost · ${why} · 1 min`);
    const expired = 'Its ttl ended; the server no longer knows it.';
    assert.equal(describeTask(task({ status: 'expired', statusMessage: 'Step 3 of 6', note: expired }), CREATED + 60_000), `Expired · ${expired} · 1 min`);
    // Without a note, the last message is still better than nothing.
    assert.equal(describeTask(task({ status: 'lost', statusMessage: 'Step 3 of 6' }), CREATED + 60_000), 'Lost · Step 3 of 6 · 1 min');
  });

  it('a question or sampling request run here as a task (T-RCV-6) reads as failed or cancelled when it ended so, with why, not as a bare error', () => {
    const createdAt = new Date(CREATED).toISOString();
    const at = CREATED + 5_000;
    assert.equal(describeHosted({ status: 'working', createdAt }, at), 'Working · now');
    // A live question waits for the user (its dialog open, hidden or in turn), as the status bar's "MCP question" says: not "Working".
    assert.equal(describeHosted({ status: 'working', method: 'elicitation/create', createdAt }, at), 'Input required · now');
    assert.equal(describeHosted({ status: 'working', method: 'sampling/createMessage', createdAt }, at), 'Working · now');
    assert.equal(describeHosted({ status: 'completed', createdAt }, at), 'Completed · now');
    assert.equal(describeHosted({ status: 'failed', statusMessage: 'Invalid params (error -32602)', createdAt }, at), 'Failed · Invalid params (error -32602) · now');
    // The host's words for the user (see TaskHost #transition, the sampling handler's tells), over those its server got.
    assert.equal(describeHosted({ status: 'failed', statusMessage: 'User rejected sampling request (error -1)', note: 'Denied by the user', createdAt }, at), 'Failed · Denied by the user · now');
    assert.equal(describeHosted({ status: 'cancelled', statusMessage: 'Cancelled at the request of the server (tasks/cancel)', note: 'Cancelled by the server', createdAt }, at), 'Cancelled by the server · now');
    // A question the user declined or cancelled (dismissed) completed (its server got the action), as the elicitation handler tells it.
    assert.equal(describeHosted({ status: 'completed', method: 'elicitation/create', note: 'Declined by the user', createdAt }, at), 'Completed · Declined by the user · now');
    assert.equal(describeHosted({ status: 'completed', method: 'elicitation/create', note: 'Dismissed by the user', createdAt }, at), 'Completed · Dismissed by the user · now');
    assert.equal(describeHosted({ status: 'cancelled', statusMessage: 'The task it belongs to ended (completed)', createdAt }, at), 'Cancelled · The task it belongs to ended (completed) · now');
    // Not said twice.
    assert.equal(describeHosted({ status: 'cancelled', statusMessage: 'Cancelled by the user', createdAt }, at), 'Cancelled by the user · now');
    // Its handler's words for the user, not the error its server got.
    assert.equal(describeHosted({ status: 'failed', statusMessage: 'No language model is available in the editor: the user needs to… (error -32603)', note: 'No language model is available: install one', createdAt }, at), 'Failed · No language model is available: install one · now');
  });

  it('a sampling request run here as a task whose consent prompt waits for the user reads as a direct call\'s row does (its server is told working: T-REQ-3); answered or ended, as before', () => {
    const createdAt = new Date(CREATED).toISOString();
    const at = CREATED + 5_000;
    assert.equal(describeHosted({ status: 'working', asks: true, createdAt }, at), 'Input required · The server asks to use a language model · now');
    assert.equal(describeHosted({ status: 'working', asks: false, createdAt }, at), 'Working · now');
    assert.equal(describeHosted({ status: 'cancelled', statusMessage: 'Cancelled by the user', asks: true, createdAt }, at), 'Cancelled by the user · now');
  });

  it('the tool pick says how each tool runs on its server, and that a tool that must run as a task cannot run on a server without tasks (T-TOOL-1, T-TOOL-2, T-TOOL-4)', () => {
    assert.deepEqual(
      [toolRunWords(true, 'required'), toolRunWords(true, 'optional'), toolRunWords(true, 'forbidden'), toolRunWords(true, undefined)],
      [['tasklist', 'runs as a task'], ['tasklist', 'task optional'], ['arrow-right', 'direct call only'], ['arrow-right', 'direct call only']],
    );
    assert.deepEqual(
      [toolRunWords(false, 'required'), toolRunWords(false, 'optional'), toolRunWords(false, undefined)],
      [['circle-slash', 'cannot run here: the server does not run tasks'], ['arrow-right', 'direct call only'], ['arrow-right', 'direct call only']],
    );
  });
});

describe('ttlRow: the tooltip\'s line on how long the server keeps a task', () => {
  const hour = 3600_000;
  const at = CREATED + 1000; // 59 min 59 s of an hour's ttl left
  const row = (over: Parameters<typeof task>[0]) => ttlRow(task({ ttl: hour, ...over }), at);

  it('a live task has its ttl left (T-LIFE-5), unlimited or ended, in words ("Kept by the server", not "TTL left")', () => {
    for (const status of ['working', 'input_required'] as const) assert.deepEqual(row({ status }), ['Kept by the server', '59 min more'], status);
    assert.deepEqual(row({ ttl: null }), ['Kept by the server', 'unlimited']);
    assert.deepEqual(ttlRow(task({ ttl: hour }), CREATED + 2 * hour), ['Kept by the server', 'no longer (its ttl ended)']);
  });

  it('a completed or failed task says how long its server keeps the result, which can be fetched again until then', () => {
    for (const status of ['completed', 'failed'] as const) assert.deepEqual(row({ status }), ['Result kept by the server', '59 min more'], status);
    assert.deepEqual(row({ status: 'completed', ttl: null }), ['Result kept by the server', 'unlimited']);
    assert.deepEqual(ttlRow(task({ status: 'completed', ttl: hour }), CREATED + 2 * hour), ['Result kept by the server', 'no longer (its ttl ended)']);
  });

  it('no line for a task the server no longer has (lost, expired), may delete at any time (cancelled), or never kept (a direct call)', () => {
    for (const status of ['lost', 'expired', 'cancelled'] as const) assert.equal(row({ status }), undefined, status);
    assert.equal(row({ kind: 'direct', taskId: 'direct-1', status: 'completed', ttl: null }), undefined, 'a direct call');
  });
});

describe('taskTitle and runTitles: rows that tell tasks apart', () => {
  it('names runs whose start cannot be read (a damaged tasks.json) without throwing, as before: the view lists them', () => {
    const titles = runTitles([task({ key: 'x', taskId: 'x', toolName: 'slow', createdAt: 'yesterday' }), task({ key: 'y', taskId: 'y', toolName: 'slow', createdAt: '' })]);
    assert.deepEqual([...titles.values()], ['slow (Invalid Date #1)', 'slow (Invalid Date #2)']);
  });

  it('names a task found through tasks/list by its whole id when short, by its start and end when long (a UUID): ids sharing a prefix differ', () => {
    const listed = (taskId: string) => taskTitle({ toolName: '', taskId });
    assert.deepEqual(['t10-listed-09', 't11-listed-10'].map(listed), ['Task t10-listed-09', 'Task t11-listed-10']);
    // server-everything's ids are UUIDs; ids made in sequence share their start.
    assert.equal(listed('3f2a9c1e-7b4d-4e2a-9c1e-5d6f7a8b9c0d'), 'Task 3f2a9c1e…8b9c0d');
    assert.notEqual(listed('task-20261205-000001'), listed('task-20261205-000002'));
    assert.equal(taskTitle({ toolName: 'slow', taskId: '3f2a9c1e-7b4d-4e2a-9c1e-5d6f7a8b9c0d' }), 'slow');
  });

  it('gives each run of one tool on one server the minute it started (a narrow side bar cuts a long label), every run of it the second where two share a minute (no `deploy (10:01 AM)` over `deploy (10:07:30 AM)`), and runs of the same second their order', () => {
    const at = (key: string, serverId: string, toolName: string, createdAt: string) => task({ key, serverId, toolName, taskId: key, createdAt });
    const minute = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: 'numeric', minute: '2-digit' });
    const second = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: 'numeric', minute: '2-digit', second: '2-digit' });
    const titles = runTitles([
      at('b', 's', 'slow', '2025-01-01T10:00:05.000Z'),
      at('a', 's', 'slow', '2025-01-01T10:00:00.000Z'),
      at('c', 's', 'fast', '2025-01-01T10:00:06.000Z'),
      at('d', 'other', 'slow', '2025-01-01T10:00:07.000Z'),
      // Two started in the same second (a model calls tools in parallel): numbered as they started.
      at('f2', 's', 'fetch', '2025-01-01T10:00:09.900Z'),
      at('f1', 's', 'fetch', '2025-01-01T10:00:09.100Z'),
      at('f3', 's', 'fetch', '2025-01-01T10:00:12.000Z'),
      // Two share a minute: all three read to the second, alike.
      at('g1', 's', 'deploy', '2025-01-01T10:01:00.000Z'),
      at('g2', 's', 'deploy', '2025-01-01T10:07:30.000Z'),
      at('g3', 's', 'deploy', '2025-01-01T10:07:45.000Z'),
    ]);
    assert.deepEqual(Object.fromEntries(titles), {
      a: `slow (${second('2025-01-01T10:00:00.000Z')})`,
      b: `slow (${second('2025-01-01T10:00:05.000Z')})`,
      f1: `fetch (${second('2025-01-01T10:00:09.100Z')} #1)`,
      f2: `fetch (${second('2025-01-01T10:00:09.900Z')} #2)`,
      f3: `fetch (${second('2025-01-01T10:00:12.000Z')})`,
      g1: `deploy (${second('2025-01-01T10:01:00.000Z')})`,
      g2: `deploy (${second('2025-01-01T10:07:30.000Z')})`,
      g3: `deploy (${second('2025-01-01T10:07:45.000Z')})`,
    });
    assert.equal(new Set(titles.values()).size, 8, 'no two alike');
    // Minutes apart: the minute tells them apart.
    const minutes = [at('h1', 's', 'build', '2025-01-01T10:01:00.000Z'), at('h2', 's', 'build', '2025-01-01T10:07:30.000Z')];
    assert.deepEqual([...runTitles(minutes).values()], [`build (${minute('2025-01-01T10:01:00.000Z')})`, `build (${minute('2025-01-01T10:07:30.000Z')})`]);
    // One task's name, from the runs of its own tool and server only: the same as the whole list gives.
    const all = [at('a', 's', 'slow', '2025-01-01T10:00:00.000Z'), at('b', 's', 'slow', '2025-01-01T10:00:05.000Z'), at('c', 's', 'fast', '2025-01-01T10:00:06.000Z')];
    assert.deepEqual(all.map((t) => runTitle(all, t)), [`slow (${second('2025-01-01T10:00:00.000Z')})`, `slow (${second('2025-01-01T10:00:05.000Z')})`, 'fast']);
    assert.ok(minute('2025-01-01T10:01:00.000Z').length < second('2025-01-01T10:01:00.000Z').length, 'the minute is the shorter');
  });

  it('formats the times of many runs with formatters made once, not one per run (a formatter made per call cost ~95 µs: 1,000 runs of one tool, redrawn as each was added, took 50 s of the extension host)', () => {
    const runs = Array.from({ length: 100 }, (_, i) => task({ key: `k${i}`, serverId: 's', toolName: 'work', taskId: `t${i}`, createdAt: new Date(Date.UTC(2025, 0, 1, 10, 0, i % 30)).toISOString() }));
    const toLocale = Date.prototype.toLocaleTimeString;
    const Made = Intl.DateTimeFormat;
    let formatters = 0;
    Date.prototype.toLocaleTimeString = function (this: Date, ...args: Parameters<typeof toLocale>) {
      formatters++; // makes a formatter of its own at each call
      return toLocale.apply(this, args);
    };
    Intl.DateTimeFormat = new Proxy(Made, { construct: (target, args: Parameters<typeof Made>) => (formatters++, new target(...args)) });
    try {
      for (let i = 0; i < 3; i++) assert.equal(runTitles(runs).size, 100);
    } finally {
      Date.prototype.toLocaleTimeString = toLocale;
      Intl.DateTimeFormat = Made;
    }
    assert.ok(formatters <= 2, `${formatters} formatters made for 300 titles`);
  });
});

describe('askedTitle: rows that tell apart what servers asked the client to run as tasks', () => {
  const second = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: 'numeric', minute: '2-digit', second: '2-digit' });
  const asked = (taskId: string, summary: string, createdAt = '2025-01-01T10:00:00.000Z', serverId = 's') => ({ taskId, serverId, summary, createdAt });
  const kind = () => 'Question asked by the server';

  it('names each by what it asks, cut at a word to fit a side bar, not all by what they are', () => {
    const long = asked('l', 'Please provide inputs for the following fields (async task demo):');
    const hosted = [asked('a', 'Pick a color'), asked('b', 'Deploy to production?'), long, asked('w', 'Supercalifragilisticexpialidocious-and-then-some-more-words')];
    assert.deepEqual(
      hosted.map((h) => askedTitle(hosted, h, kind)),
      ['Pick a color', 'Deploy to production?', 'Please provide inputs for the following…', 'Supercalifragilisticexpialidocious-and-…'],
    );
    for (const h of hosted) assert.ok(askedTitle(hosted, h, kind).length <= 40);
    // Cut where no space helps, never inside an emoji: half a surrogate pair shows as a replacement character.
    const emoji = asked('u', `Deploy ${'x'.repeat(31)}🚀 now?`);
    assert.equal(askedTitle([emoji], emoji, kind), `Deploy ${'x'.repeat(31)}…`);
    // One that says nothing in words (a sampling request of images only) is named by what it is.
    assert.equal(askedTitle([asked('e', '')], asked('e', ''), kind), 'Question asked by the server');
  });

  it('says when each was asked among those its server asked alike, as runs of one tool do', () => {
    const hosted = [asked('a', 'Confirm?', '2025-01-01T10:00:00.000Z'), asked('b', 'Confirm?', '2025-01-01T10:00:05.000Z'), asked('c', 'Other?'), asked('d', 'Confirm?', '2025-01-01T10:00:07.000Z', 'other')];
    assert.deepEqual(
      hosted.map((h) => askedTitle(hosted, h, kind)),
      [`Confirm? (${second('2025-01-01T10:00:00.000Z')})`, `Confirm? (${second('2025-01-01T10:00:05.000Z')})`, 'Other?', 'Confirm?'],
    );
    // Two with nothing in words, alike too.
    const mute = [asked('x', '', '2025-01-01T10:00:00.000Z'), asked('y', '', '2025-01-01T10:00:01.000Z')];
    assert.equal(new Set(mute.map((h) => askedTitle(mute, h, kind))).size, 2);
  });
});
