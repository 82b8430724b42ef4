// The settings (package.json `contributes.configuration`): how the Settings editor shows them.
// Its labels come from the keys: in a section whose `id` is not the key's prefix, every label
// repeats it ("Mcp Tasks › Notifications: Input Required"); in one whose `id` is, the label is the
// last part of the key under the section's title ("Notifications" › "Input Required"). Seen in
// code-server 1.139.1, whose Settings editor trims a key's prefix by the id of its section.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

interface Setting {
  type?: unknown;
  scope?: string;
  enum?: unknown[];
  enumDescriptions?: string[];
  properties?: Record<string, Setting>;
  additionalProperties?: Setting | boolean;
  description?: string;
  markdownDescription?: string;
  order?: number;
}

interface Section {
  id?: string;
  title?: string;
  properties: Record<string, Setting>;
}

const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../../package.json'), 'utf8')) as {
  contributes: { configuration: Section | Section[] };
};
const sections = ([] as Section[]).concat(manifest.contributes.configuration);

describe('the settings', () => {
  it('are in sections whose id is the prefix of their keys, so the Settings editor labels them without "Mcp Tasks ›"', () => {
    assert.deepEqual(
      sections.map((s) => [s.id, s.title]),
      [
        ['mcpTasks', 'MCP Tasks'],
        ['mcpTasks.notifications', 'Notifications'],
        ['mcpTasks.sampling', 'Sampling'],
        ['mcpTasks.hostedTasks', 'Hosted Tasks'],
      ],
    );
    for (const s of sections) {
      for (const key of Object.keys(s.properties)) assert.equal(key.slice(0, key.lastIndexOf('.')), s.id, `${key} is in the section ${s.id}`);
    }
  });

  it('each have a description', () => {
    for (const s of sections) {
      for (const [key, setting] of Object.entries(s.properties)) assert.ok((setting.description ?? setting.markdownDescription ?? '').length > 20, key);
    }
  });

  it('with Markdown in their text have it as markdownDescription: the Settings editor shows a plain description as typed, backticks and all', () => {
    for (const s of sections) {
      for (const [key, setting] of Object.entries(s.properties)) assert.doesNotMatch(setting.description ?? '', /`|\*\*/, key);
    }
  });

  it('kept per machine say where to set them in a remote window, where the User tab\'s value does not apply ("This setting cannot be applied in this window")', () => {
    const machine = sections.flatMap((s) => Object.entries(s.properties)).filter(([, v]) => v.scope?.startsWith('machine'));
    assert.deepEqual(machine.map(([key]) => key), ['mcpTasks.servers']);
    for (const [key, v] of machine) assert.match(v.markdownDescription ?? v.description ?? '', /In a remote window, set it on the \*\*Remote\*\* or \*\*Workspace\*\* tab/, key);
  });

  it('that count things are integers (the Settings editor refuses 2.5 questions at once); durations and rates may be fractions, as the code reads them', () => {
    const numeric = sections.flatMap((s) => Object.entries(s.properties)).filter(([, v]) => v.type === 'number' || v.type === 'integer');
    assert.deepEqual(Object.fromEntries(numeric.map(([key, v]) => [key, v.type])), {
      'mcpTasks.defaultTtlSeconds': 'number',
      'mcpTasks.retentionDays': 'number',
      'mcpTasks.requestTimeoutSeconds': 'number',
      'mcpTasks.hostedTasks.maxTtlSeconds': 'number',
      'mcpTasks.hostedTasks.maxConcurrentPerServer': 'integer',
      'mcpTasks.hostedTasks.maxOperationsPerSecond': 'number',
    });
  });

  it('of the first section come in the order of use, servers first (the editor sorts the others by name)', () => {
    const first = Object.entries(sections[0].properties).sort(([, a], [, b]) => (a.order ?? Infinity) - (b.order ?? Infinity));
    assert.deepEqual(
      first.map(([key]) => key),
      ['mcpTasks.servers', 'mcpTasks.readWorkspaceMcpJson', 'mcpTasks.autoFetchResults', 'mcpTasks.defaultTtlSeconds', 'mcpTasks.retentionDays', 'mcpTasks.requestTimeoutSeconds'],
    );
    assert.ok(first.every(([, s]) => s.order !== undefined), 'each has its order');
  });

  it('describe each value of an enum, where settings.json offers them (a server\'s "type": what "sse" and "ws" are)', () => {
    const walk = (key: string, x: Setting | boolean | undefined): void => {
      if (typeof x !== 'object') return;
      if (x.enum) assert.equal(x.enumDescriptions?.length, x.enum.length, `${key}: a description for each of ${x.enum.join(', ')}`);
      for (const [k, p] of Object.entries(x.properties ?? {})) walk(`${key}.${k}`, p);
      walk(`${key}.*`, x.additionalProperties);
    };
    for (const s of sections) for (const [key, setting] of Object.entries(s.properties)) walk(key, setting);
  });

  it('notifications.inputRequired says a question on screen is not notified, as README.md says', () => {
    const d = sections.find((s) => s.id === 'mcpTasks.notifications')!.properties['mcpTasks.notifications.inputRequired'].description ?? '';
    assert.match(d, /not on screen/);
  });
});
