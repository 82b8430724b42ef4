// esbuild.js's problem-matcher plugin: what `node esbuild.js` prints.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../../../..');
type Plugin = { setup(build: { onStart(f: () => void): void; onEnd(f: (r: { errors: Array<{ text: string; location?: { file: string; line: number; column: number } }> }) => void): void }): void };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { problemMatcher } = require(path.join(root, 'esbuild.js')) as { problemMatcher: (watching: boolean) => Plugin };

/** What one build with `errors` prints through the plugin (console.log and console.error, in order). */
const printed = (watching: boolean, errors: Array<{ text: string; location?: { file: string; line: number; column: number } }> = []): string[] => {
  const starts: Array<() => void> = [];
  const ends: Array<(r: { errors: typeof errors }) => void> = [];
  problemMatcher(watching).setup({ onStart: (f) => starts.push(f), onEnd: (f) => ends.push(f) });
  const lines: string[] = [];
  const { log, error } = console;
  console.log = console.error = (line: string) => lines.push(line);
  try {
    starts.forEach((f) => f());
    ends.forEach((f) => f({ errors }));
  } finally {
    Object.assign(console, { log, error });
  }
  return lines;
};

describe("esbuild.js's output", () => {
  it('a one-off build (npm run build, --production) prints no "[watch]" lines: nothing watches', () => {
    assert.deepEqual(printed(false), []);
  });

  it('in watch mode, each build says when it starts and ends, which the $esbuild-watch problem matcher waits for', () => {
    assert.deepEqual(printed(true), ['[watch] build started', '[watch] build finished']);
  });

  it('errors are printed in the shape of the problem matcher, watched or not', () => {
    const errors = [{ text: 'Could not resolve "x"', location: { file: 'src/a.ts', line: 3, column: 7 } }];
    assert.deepEqual(printed(false, errors), ['✘ [ERROR] Could not resolve "x"', '    src/a.ts:3:7:']);
    assert.deepEqual(printed(true, errors), ['[watch] build started', '✘ [ERROR] Could not resolve "x"', '    src/a.ts:3:7:', '[watch] build finished']);
  });
});
