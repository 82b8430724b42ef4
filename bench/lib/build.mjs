// Bundles what the benchmarks load, with esbuild, into bench/results/.build/ (git-ignored, and
// ignored by eslint, unlike a new folder would be until the ignore lists learn about it).
//   core.cjs       the core classes the clients drive, straight from src/ (no tsc step, no out/)
//   tree.cjs       src/vscode/tree/tasksTree.ts with `vscode` left external (stubbed by view.mjs)
//   extension.js   the production bundle, built with esbuild.js's own options (see below)
//   sdk-client.js  a client-only bundle of @modelcontextprotocol/sdk, for the size comparison
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildDir, repoRoot } from './common.mjs';

const require = createRequire(import.meta.url);
const esbuild = require('esbuild');

/** Exports of core.cjs. */
const CORE_ENTRY = `
export { McpSession } from './src/core/protocol/session';
export { StdioTransport } from './src/core/transports/stdio';
export { InMemoryTransport } from './src/core/transports/inMemory';
export { LineBuffer, serializeLine } from './src/core/transports/lineBuffer';
export { JsonRpcConnection } from './src/core/jsonrpc/connection';
export { RpcError, ErrorCode } from './src/core/jsonrpc/errors';
export { TaskEngine } from './src/core/tasks/engine';
export { CallToolResultSchema } from './src/core/protocol/schemas';
export { Emitter } from './src/core/util/event';
`;

const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'silent', charset: 'utf8' };

/** The core and the tree, unminified so CPU profiles name the functions. */
export async function buildCore() {
  mkdirSync(buildDir, { recursive: true });
  await esbuild.build({ ...common, stdin: { contents: CORE_ENTRY, resolveDir: repoRoot, loader: 'ts', sourcefile: 'bench-core.ts' }, outfile: join(buildDir, 'core.cjs') });
  await esbuild.build({ ...common, entryPoints: [join(repoRoot, 'src/vscode/tree/tasksTree.ts')], external: ['vscode'], outfile: join(buildDir, 'tree.cjs') });
  return { core: join(buildDir, 'core.cjs'), tree: join(buildDir, 'tree.cjs') };
}

/**
 * The production bundle exactly as `node esbuild.js --production` makes it, but written to
 * bench/results/.build/prod/extension.js: esbuild.js is run with its `esbuild` module swapped
 * for one that redirects `outfile`, so its options (aliases, plugins) stay the single source and
 * dist/ (which other tools may be using at the time) is left alone.
 */
export async function buildProduction() {
  const outfile = join(buildDir, 'prod', 'extension.js');
  mkdirSync(join(buildDir, 'prod'), { recursive: true });
  const Module = require('node:module');
  const script = join(repoRoot, 'esbuild.js');
  const realLoad = Module._load;
  let metafile;
  const proxy = {
    ...esbuild,
    context: async (opts) => {
      const ctx = await esbuild.context({ ...opts, outfile, absWorkingDir: repoRoot });
      return { ...ctx, rebuild: async () => ((metafile = (await ctx.rebuild()).metafile), { metafile }), dispose: () => ctx.dispose(), watch: () => ctx.watch() };
    },
  };
  const argv = process.argv;
  const cwd = process.cwd();
  let done;
  const finished = new Promise((r) => (done = r));
  Module._load = function (request, parent, isMain) {
    if (request === 'esbuild' && parent?.filename === script) return proxy;
    return realLoad.call(this, request, parent, isMain);
  };
  try {
    process.argv = [argv[0], script, '--production'];
    process.chdir(repoRoot); // esbuild.js names its entry and aliases relative to the repository
    delete require.cache[script];
    require(script);
    // esbuild.js runs main() without exporting it: wait until the proxy's rebuild has produced.
    const deadline = Date.now() + 60_000;
    while (!metafile && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    done();
  } finally {
    Module._load = realLoad;
    process.argv = argv;
    process.chdir(cwd);
  }
  await finished;
  if (!metafile) throw new Error('esbuild.js did not build within 60 s');
  return { outfile, metafile };
}

/** An SDK client of the kind an extension would ship: Client and the stdio and Streamable HTTP transports. */
export async function buildSdkClient() {
  const outfile = join(buildDir, 'sdk-client.js');
  const contents = `
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export { Client, StdioClientTransport, StreamableHTTPClientTransport };
`;
  const r = await esbuild.build({ ...common, stdin: { contents, resolveDir: repoRoot, loader: 'js', sourcefile: 'sdk-client.mjs' }, minify: true, legalComments: 'none', metafile: true, outfile });
  return { outfile, metafile: r.metafile };
}
