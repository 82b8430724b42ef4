// The turns servers' dialogs take (questions, sampling consent): one shown at a time, in the
// order asked; a dialog hidden without an answer gives up its own turn and stays pending (the
// ones waiting then are deferred until the user asks), and shown again it takes a turn again.
import * as assert from 'node:assert/strict';
import type { Turn } from '../../../src/core/util/turns';
import { Turns } from '../../../src/core/util/turns';

/** A dialog in `turns`: shown once its turn comes, open until `end` answers it. */
class Dialog {
  shown = false;
  turn?: Turn;
  end!: (answer: string) => void;
  readonly result: Promise<string>;
  constructor(turns: Turns, signal = new AbortController().signal) {
    this.result = turns.take(
      (turn) =>
        new Promise<string>((resolve) => {
          this.shown = true;
          this.turn = turn;
          this.end = resolve;
        }),
      signal,
    );
  }
}

const dialog = (turns: Turns, signal?: AbortSignal) => new Dialog(turns, signal);

/** Lets every promise callback queued so far run. */
const settle = () => new Promise((r) => setImmediate(r));

describe('Turns: servers\' dialogs one at a time', () => {
  it('shows dialogs in the order asked, each after the one before ends; one withdrawn before its turn is never shown', async () => {
    const turns = new Turns();
    const withdrawn = new AbortController();
    const a = dialog(turns);
    const b = dialog(turns, withdrawn.signal);
    const c = dialog(turns);
    await settle();
    assert.deepEqual([a.shown, b.shown, c.shown], [true, false, false]);
    withdrawn.abort(new Error('withdrawn'));
    await assert.rejects(b.result, /withdrawn/);
    a.end('a');
    assert.equal(await a.result, 'a');
    await settle();
    assert.deepEqual([b.shown, c.shown], [false, true]);
    c.end('c');
    assert.equal(await c.result, 'c');
  });

  it('a dialog hidden without an answer gives up its turn and stays pending; the ones waiting then are deferred until the user asks for them', async () => {
    const turns = new Turns();
    let changes = 0;
    turns.onDidChange(() => changes++);
    const a = dialog(turns);
    const b = dialog(turns);
    const c = dialog(turns);
    await settle();
    assert.equal(b.shown, false, 'b waits for a');
    a.turn!.release();
    await settle();
    assert.deepEqual([b.shown, c.shown], [false, false], 'nothing pops up over what hid a (the Command Palette, say)');
    assert.equal(turns.deferred, 2);
    assert.ok(changes > 0, 'the count was announced');
    assert.equal(turns.resume(), true, 'the user asks for them');
    await settle();
    assert.deepEqual([b.shown, c.shown, turns.deferred], [true, false, 0]);
    let aSettled = false;
    void a.result.then(() => (aSettled = true));
    b.end('b');
    assert.equal(await b.result, 'b');
    await settle();
    assert.equal(c.shown, true, 'then the next in line');
    assert.equal(aSettled, false, 'hiding answered nothing');
    c.end('c');
    a.end('a, answered later');
    assert.equal(await a.result, 'a, answered later');
    assert.equal(turns.resume(), false, 'nothing is deferred');
  });

  it('a dialog asked for after the hide shows in its turn, as any new one does; answered, the deferred ones follow', async () => {
    const turns = new Turns();
    const a = dialog(turns);
    const b = dialog(turns);
    await settle();
    a.turn!.release();
    const later = dialog(turns);
    await settle();
    assert.deepEqual([b.shown, later.shown, turns.deferred], [false, true, 1]);
    later.end('later');
    await later.result;
    await settle();
    assert.deepEqual([b.shown, turns.deferred], [true, 0], 'answering a dialog on screen lets the deferred ones follow');
    b.end('b');
    a.end('a');
    await Promise.all([a.result, b.result]);
  });

  it('bring(): a deferred dialog about a task shows next, before the others; one not deferred is not brought', async () => {
    const turns = new Turns();
    const shown: string[] = [];
    const ends = new Map<string, () => void>();
    const ask = (name: string, about: string[]) =>
      turns.take((turn) => new Promise<string>((resolve) => (shown.push(name), ends.set(name, () => resolve(name)), name === 'a' && turn.release())), new AbortController().signal, about);
    const results = [ask('a', ['task-a']), ask('b', ['task-b']), ask('c', ['task-c', 'hosted-c'])];
    await settle();
    assert.deepEqual(shown, ['a'], 'a shown, then hidden');
    assert.equal(turns.bring('task-none'), false);
    assert.equal(turns.bring('hosted-c'), true, 'by its hosted task as well as its task');
    await settle();
    assert.deepEqual([shown, turns.deferred], [['a', 'c'], 1]);
    const d = ask('d', ['task-d']);
    assert.equal(turns.bring('task-d'), false, 'd is not deferred: it waits in its turn');
    ends.get('c')!();
    await settle();
    assert.deepEqual(shown, ['a', 'c', 'b'], 'c answered: the deferred b follows, before d');
    ends.get('b')!();
    await settle();
    ends.get('d')!();
    ends.get('a')!();
    assert.deepEqual(await Promise.all([...results, d]), ['a', 'b', 'c', 'd']);
  });

  it('a dialog releases only its own turn: hidden again while another is shown, it lets no third one show over it', async () => {
    const turns = new Turns();
    const a = dialog(turns);
    const b = dialog(turns);
    const c = dialog(turns);
    await settle();
    a.turn!.release();
    turns.resume();
    await settle();
    assert.deepEqual([b.shown, c.shown], [true, false]);
    a.turn!.release();
    await settle();
    assert.equal(c.shown, false, 'b still holds the turn');
    assert.equal(turns.deferred, 0, 'and defers nothing');
    b.end('b');
    await b.result;
    await settle();
    assert.equal(c.shown, true);
    c.end('c');
    a.end('a');
    await Promise.all([a.result, c.result]);
  });

  it('shown again, a hidden dialog waits for the one shown, goes before those still waiting, and holds the turn until it ends', async () => {
    const turns = new Turns();
    const a = dialog(turns);
    const b = dialog(turns);
    const c = dialog(turns);
    await settle();
    a.turn!.release();
    turns.resume();
    await settle();
    let again = 0;
    a.turn!.retake(() => again++);
    a.turn!.retake(() => again++);
    assert.equal(again, 0, 'not over b, which is shown');
    b.end('b');
    await b.result;
    await settle();
    assert.equal(again, 1, 'a shows again once b is answered, once');
    assert.equal(c.shown, false, 'c waits for a, shown again');
    a.end('a');
    await a.result;
    await settle();
    assert.equal(c.shown, true);
    c.end('c');
    await c.result;
  });

  it('shown again when no dialog is shown, at once, before the deferred ones; hidden again, it gives up its turn again', async () => {
    const turns = new Turns();
    const a = dialog(turns);
    const b = dialog(turns);
    await settle();
    a.turn!.release();
    let again = 0;
    a.turn!.retake(() => again++);
    assert.equal(again, 1);
    const c = dialog(turns);
    await settle();
    assert.deepEqual([b.shown, c.shown], [false, false], 'a holds the turn again');
    a.turn!.release();
    await settle();
    assert.deepEqual([b.shown, c.shown, turns.deferred], [false, false, 2], 'hidden again: both wait for the user');
    turns.resume();
    await settle();
    assert.equal(b.shown, true);
    b.end('b');
    await b.result;
    await settle();
    c.end('c');
    a.end('a');
    await Promise.all([a.result, c.result]);
  });

  it('a dialog waiting to show again (the user asked for it while another was on screen) is deferred too when that other one is hidden', async () => {
    const turns = new Turns();
    const a = dialog(turns);
    await settle();
    a.turn!.release();
    const b = dialog(turns);
    await settle();
    assert.equal(b.shown, true, 'b, asked after a was hidden, shows');
    let again = 0;
    a.turn!.retake(() => again++);
    assert.equal(again, 0, 'a waits for b');
    b.turn!.release(); // the Command Palette over b
    await settle();
    assert.deepEqual([again, turns.deferred], [0, 1], 'a does not pop up over the palette: it waits for the user');
    turns.resume();
    assert.equal(again, 1);
    a.end('a');
    b.end('b');
    await Promise.all([a.result, b.result]);
  });

  it('a dialog withdrawn while it waits to show again is never shown, and the turn passes on', async () => {
    const turns = new Turns();
    const withdrawn = new AbortController();
    const a = dialog(turns, withdrawn.signal);
    const b = dialog(turns);
    const c = dialog(turns);
    await settle();
    a.turn!.release();
    turns.resume();
    await settle();
    let again = 0;
    a.turn!.retake(() => again++);
    // The server withdraws a: its dialog closes (its run settles).
    withdrawn.abort(new Error('withdrawn'));
    await assert.rejects(a.result, /withdrawn/);
    a.end('closed');
    await settle();
    b.end('b');
    await b.result;
    await settle();
    assert.equal(again, 0, 'a is not shown again');
    assert.equal(c.shown, true);
    a.turn!.retake(() => again++);
    assert.equal(again, 0, 'nor later');
    c.end('c');
    await c.result;
  });
});

describe('Turns: a deferred dialog withdrawn', () => {
  it('a deferred dialog withdrawn by its server is no longer counted, and resume() does not report it', async () => {
    const turns = new Turns();
    let changes = 0;
    turns.onDidChange(() => changes++);
    const withdrawn = new AbortController();
    const a = dialog(turns);
    const b = dialog(turns, withdrawn.signal);
    await settle();
    a.turn!.release();
    await settle();
    assert.equal(turns.deferred, 1, 'b deferred');
    const before = changes;
    withdrawn.abort(new Error('withdrawn'));
    await assert.rejects(b.result, /withdrawn/);
    await settle();
    assert.ok(changes > before, 'the count change is announced');
    assert.equal(turns.deferred, 0, 'b is withdrawn: the status item must not count it');
    assert.equal(turns.resume(), false, 'nothing to show');
    a.end('a');
  });
});

describe('Turns: a dialog withdrawn on screen', () => {
  // The editor's QuickInput.dispose() fires onDidHide synchronously when the input is shown
  // (extHostQuickOpen.ts: dispose -> _fireDidHide), and QuickInputPrompter's abort handler
  // disposes the input before its listeners are gone: its onDidHide -> hidden.add -> turn.release().
  it('a question withdrawn by its server while on screen (its closing reads as a hide) lets the next one show', async () => {
    const turns = new Turns();
    const withdrawn = new AbortController();
    let bShown = false;
    const a = turns.take(
      (turn) =>
        new Promise<string>((_resolve, reject) => {
          withdrawn.signal.addEventListener('abort', () => {
            reject(withdrawn.signal.reason); // onAbort: reject, then this.close()
            turn.release(); // close() -> dispose() -> onDidHide -> hidden.add(input, turn)
          });
        }),
      withdrawn.signal,
    );
    const b = turns.take(() => new Promise<string>(() => (bShown = true)), new AbortController().signal);
    void b;
    await settle();
    withdrawn.abort(new Error('withdrawn'));
    await assert.rejects(a, /withdrawn/);
    await settle();
    assert.deepEqual([bShown, turns.deferred], [true, 0], 'nobody hid anything: b should show, not wait for the user');
  });

  it('a dialog withdrawn on screen is not an answer: the deferred ones keep waiting for the user', async () => {
    const turns = new Turns();
    const withdrawn = new AbortController();
    const a = dialog(turns);
    const b = dialog(turns);
    await settle();
    a.turn!.release(); // the user opened the palette over a: b is deferred
    // A new question shows in its turn; withdrawn, its dialog closes (as QuickInputPrompter's does).
    let laterShown = false;
    const later = turns.take(
      () =>
        new Promise<string>((_resolve, reject) => {
          laterShown = true;
          withdrawn.signal.addEventListener('abort', () => reject(withdrawn.signal.reason));
        }),
      withdrawn.signal,
    );
    await settle();
    assert.deepEqual([laterShown, b.shown, turns.deferred], [true, false, 1]);
    withdrawn.abort(new Error('withdrawn')); // its task ended on the server
    await assert.rejects(later, /withdrawn/);
    await settle();
    assert.deepEqual([b.shown, turns.deferred], [false, 1], 'the user answered nothing: b must not pop up by itself');
    assert.equal(turns.resume(), true, 'b still waits for the user');
    await settle();
    assert.equal(b.shown, true);
    b.end('b');
    a.end('a');
    await Promise.all([a.result, b.result]);
  });
});

describe('Turns: where a task\'s dialog is', () => {
  it('whereIs() says shown, waiting, deferred or none, and onDidShow names what each dialog that takes its turn is about (for the "needs your input" notification)', async () => {
    const turns = new Turns();
    const shownAbout: string[][] = [];
    turns.onDidShow((about) => shownAbout.push([...about]));
    const signal = new AbortController().signal;
    const turnOf: Record<string, Turn> = {};
    const ends: Record<string, () => void> = {};
    const ask = (key: string) => turns.take((turn) => new Promise<void>((resolve) => ((turnOf[key] = turn), (ends[key] = resolve))), signal, [key]);
    const a = ask('a');
    const b = ask('b');
    await settle();
    assert.deepEqual([turns.whereIs('a'), turns.whereIs('b'), turns.whereIs('c')], ['shown', 'waiting', undefined]);
    assert.deepEqual(shownAbout, [['a']]);
    turnOf.a.release(); // hidden without an answer
    assert.deepEqual([turns.whereIs('a'), turns.whereIs('b')], [undefined, 'deferred']);
    assert.ok(turns.resume());
    await settle();
    assert.deepEqual([turns.whereIs('b'), shownAbout], ['shown', [['a'], ['b']]]);
    ends.b();
    await b;
    assert.equal(turns.whereIs('b'), undefined);
    ends.a();
    await a;
  });
});
