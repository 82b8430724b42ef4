// Per-server sampling consent: ask by default, "always" once granted (bound to the server's
// configuration fingerprint), revocable, and stored as plain JSON.
import * as assert from 'node:assert/strict';
import { SamplingPermissions } from '../../../src/core/sampling/permissions';

describe('sampling: SamplingPermissions', () => {
  it('asks for every server until the user allows it always', () => {
    const p = new SamplingPermissions();
    assert.equal(p.get('settings:demo'), 'ask');
    p.allowAlways('settings:demo', 'demo');
    assert.equal(p.get('settings:demo'), 'always');
    assert.equal(p.get('settings:other'), 'ask', 'a grant is for one server');
    assert.deepEqual(p.alwaysAllowed(), [{ serverId: 'settings:demo', label: 'demo' }]);
  });

  it('holds a grant only while the server\'s configuration fingerprint is unchanged', () => {
    const p = new SamplingPermissions();
    p.allowAlways('folder:/w:demo', 'demo', 'fp1');
    assert.equal(p.get('folder:/w:demo', 'fp1'), 'always');
    assert.equal(p.get('folder:/w:demo', 'fp2'), 'ask', 'the command or URL changed: ask again');
    assert.equal(p.get('folder:/w:demo'), 'ask');
  });

  it('revokes one server or all, firing a change only when something changed', () => {
    const p = new SamplingPermissions();
    let changes = 0;
    p.onDidChange(() => changes++);
    p.allowAlways('a', 'Alpha');
    p.allowAlways('b', 'Beta');
    assert.equal(changes, 2);
    assert.equal(p.revoke('a'), true);
    assert.equal(p.get('a'), 'ask');
    assert.equal(p.revoke('a'), false);
    assert.equal(changes, 3, 'revoking nothing changes nothing');
    p.allowAlways('c', 'Gamma');
    assert.equal(p.revokeAll(), 2);
    assert.equal(p.revokeAll(), 0);
    assert.equal(changes, 5);
    assert.deepEqual(p.alwaysAllowed(), []);
    p.dispose();
  });

  it('lists grants by label for the revoke command', () => {
    const p = new SamplingPermissions();
    p.allowAlways('z', 'zeta');
    p.allowAlways('a', 'Alpha');
    assert.deepEqual(p.alwaysAllowed().map((x) => x.label), ['Alpha', 'zeta']);
  });

  it('round-trips through JSON (what globalState keeps)', () => {
    const p = new SamplingPermissions();
    p.allowAlways('settings:demo', 'demo', 'fp1');
    p.allowAlways('settings:plain', 'plain');
    const stored = JSON.parse(JSON.stringify(p));
    assert.deepEqual(stored, { version: 1, always: { 'settings:demo': { label: 'demo', fingerprint: 'fp1' }, 'settings:plain': { label: 'plain' } } });
    const q = SamplingPermissions.fromJSON(stored);
    assert.equal(q.get('settings:demo', 'fp1'), 'always');
    assert.equal(q.get('settings:plain'), 'always');
    assert.deepEqual(q.toJSON(), p.toJSON());
  });

  it('reads anything unreadable as no grants at all (everyone is asked again)', () => {
    for (const bad of [undefined, null, 'always', [], { version: 2, always: {} }, { version: 1, always: { a: 'yes' } }, { version: 1, always: [] }]) {
      const p = SamplingPermissions.fromJSON(bad);
      assert.deepEqual(p.alwaysAllowed(), [], JSON.stringify(bad));
    }
  });
});
