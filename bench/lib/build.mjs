// Bundles what the benchmarks load, with esbuild, into bench/results/.build/ (git-ignored, and
// ignored by eslint, unlike a new folder would be until the ignore lists learn about it).
//   core.cjs       the core classes the clients drive, straight from src/ (no tsc step, no out/)
//   tree.cjs       src/vscode/tree/tasksTree.ts with `vscode` left external (stubbed by view.mjs)
//   extension.js   the production bundle, built with esbuild.js's own options
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
export { TaskStore } from './src/core/state/taskStore';
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
 * The production bundle with esbuild.js's own options (aliases, plugins: the single source),
 * written to bench/results/.build/prod/extension.js so dist/ (which other tools may be using at
 * the time) is left alone.
 */
export async function buildProduction() {
  const outfile = join(buildDir, 'prod', 'extension.js');
  mkdirSync(join(buildDir, 'prod'), { recursive: true });
  const { options } = require(join(repoRoot, 'esbuild.js'));
  const r = await esbuild.build({ ...options({ production: true }), outfile, absWorkingDir: repoRoot, metafile: true });
  return { outfile, metafile: r.metafile };
}

/**
 * What the extension would load at activation if the parts it can do without until used were
 * loaded on demand: the production bundle with the four transports, the question forms,
 * sampling, the chat tools and the public API (and ws and the SSE parser) left out as externals.
 * Not built for shipping: it measures how far on-demand loading could take the bundle.
 */
export async function buildStartupOnly() {
  const outfile = join(buildDir, 'prod', 'startup-only.js');
  const { options } = require(join(repoRoot, 'esbuild.js'));
  const later = [/[\\/]transports[\\/](sse|sseStream|streamableHttp|nodeFetch|stdio|lineBuffer|websocket)$/, /[\\/]elicitation[\\/]/, /[\\/]sampling[\\/]/, /[\\/]api[\\/](lm\w*|service)$/, /[\\/]vscode[\\/](lmTools|toolInputs|api)$/];
  const onDemand = {
    name: 'on-demand',
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.path === 'ws' || args.path === 'eventsource-parser') return { path: args.path, external: true };
        if (!args.path.startsWith('.')) return undefined;
        return later.some((re) => re.test(join(args.resolveDir, args.path))) ? { path: args.path, external: true } : undefined;
      });
    },
  };
  const base = options({ production: true });
  await esbuild.build({ ...base, outfile, absWorkingDir: repoRoot, plugins: [onDemand, ...(base.plugins ?? [])] });
  return { outfile };
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
