// Prints how long require() of a bundle takes in a fresh process, in ms (one JSON line).
// Usage: node require-time.cjs FILE [--stub-vscode]
const { performance } = require('node:perf_hooks');
const Module = require('node:module');

if (process.argv.includes('--stub-vscode')) {
  // Anything the bundle touches on `vscode` while loading gets a harmless class.
  const any = new Proxy(class {}, { get: (t, p) => (p in t ? t[p] : any), apply: () => any, construct: () => ({}) });
  const load = Module._load;
  Module._load = function (request, parent, isMain) {
    return request === 'vscode' ? any : load.call(this, request, parent, isMain);
  };
}
const t0 = performance.now();
const loaded = require(process.argv[2]);
const ms = performance.now() - t0;
process.stdout.write(JSON.stringify({ ms, exports: Object.keys(loaded).length }) + '\n');
