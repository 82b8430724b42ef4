// A server whose tasks/get answers are invalid (a status the spec does not have, a date that is no
// string) is not asked every second for ever with a warning each time: its task's polls back off,
// its row says why, and the log says it once. Under fake timers, so the polls can be counted.
import * as assert from 'node:assert/strict';
import FakeTimers from '@sinonjs/fake-timers';
import type { Harness } from '../helpers/fakeTaskServer';
import { createHarness } from '../helpers/fakeTaskServer';
import { taskKey } from '../../../src/core/tasks/types';

describe('TaskEngine: a task whose tasks/get answers are invalid', () => {
  let clock: ReturnType<typeof FakeTimers.install> | undefined;
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
    clock?.uninstall();
    clock = undefined;
  });

  it('T-REQ-2: its polls back off (1 s, 2 s, 4 s… up to a minute) instead of once a second, its row says the answers are invalid with the first problem, the log warns once and counts the rest; a valid answer ends it all', async () => {
    clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    h = await createHarness({ server: { notify: 'none', pollInterval: 1_000 }, engine: { random: () => 0 } });
    const t = await h.engine.callTool('fake', 'required-tool');
    let invalid = true;
    h.server.override('tasks/get', async (_p, _c, builtin) => {
      const { lastUpdatedAt: _, ...task } = (await builtin()) as Record<string, unknown>;
      return invalid ? { ...task, status: 'running', statusMessage: 12 } : { ...task, lastUpdatedAt: new Date().toISOString() };
    });
    const polls = () => h!.server.requestsOf('tasks/get').length;
    await clock.tickAsync(10 * 60_000);
    // 1 + 2 + 4 + … + 32 s, then once a minute: 16 polls in 10 minutes, not 600.
    assert.ok(polls() <= 16, `${polls()} polls`);
    const s = h.snap(t.taskId);
    assert.equal(s.status, 'working');
    // zod's words for the problem: "invalid input" as shipped (zod/mini), "invalid option: …" once
    // another test file has loaded full zod, whose English locale then words every zod error.
    assert.match(s.note ?? '', /^The server's answers are invalid \(status: invalid (input|option: [^;]*)\); asked less often\.$/);
    const told = h.log.lines.filter((l) => l.message.includes(`tasks/get ${t.taskId} failed`));
    assert.deepEqual(
      told.map((l) => l.level),
      ['warn', ...told.slice(1).map(() => 'debug')],
      h.log.text(),
    );
    assert.match(told[told.length - 1].message, new RegExp(`\\(${told.length} times so far\\)$`));
    invalid = false;
    await clock.tickAsync(60_000);
    assert.equal(h.snap(t.taskId).note, undefined, 'a valid answer clears the note');
    const before = polls();
    await clock.tickAsync(10_000);
    assert.ok(polls() - before >= 5, 'polled at its interval again');
  });

  it('the note of answers found invalid before a reload goes with the first valid answer after it', async () => {
    clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    h = await createHarness({ server: { notify: 'none', pollInterval: 1_000 }, engine: { random: () => 0 } });
    const { taskId, createdAt } = h.server.createTask('long-tool');
    const note = "The server's answers are invalid (status: invalid input); asked less often.";
    h.engine.restore([{ key: taskKey('fake', taskId), serverId: 'fake', taskId, kind: 'task', toolName: 'long-tool', status: 'working', createdAt, lastUpdatedAt: createdAt, ttl: null, origin: 'user', note }], new Map());
    assert.equal(h.snap(taskId).note, note);
    await clock.tickAsync(5_000);
    assert.ok(h.server.requestsOf('tasks/get').length > 0);
    assert.equal(h.snap(taskId).note, undefined);
  });
});
