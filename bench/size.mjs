// Benchmark 4a: size and load time. Our production bundle (esbuild.js --production, built into
// bench/results/.build/prod/extension.js) beside a minified client-only bundle of the SDK
// (Client, StdioClientTransport, StreamableHTTPClientTransport; platform node). Load time:
// require() of each bundle in a fresh Node process (ours with a stub `vscode`), alternating.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { benchDir, envNumber, fmt, median, verdict } from './lib/common.mjs';
import { buildProduction, buildSdkClient, buildStartupOnly } from './lib/build.mjs';

/** Output bytes by package (or by top folder of src/) from an esbuild metafile. */
function contributors(metafile, outfile) {
  const out = Object.entries(metafile.outputs).find(([k]) => outfile.endsWith(k) || k.endsWith('extension.js') || k.endsWith('sdk-client.js'));
  const by = {};
  for (const [input, { bytesInOutput }] of Object.entries(out?.[1].inputs ?? {})) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input) ?? /^(src\/[^/]+(?:\/[^/]+)?)/.exec(input);
    const k = m ? m[1] : input;
    by[k] = (by[k] ?? 0) + bytesInOutput;
  }
  return Object.entries(by).sort((a, b) => b[1] - a[1]);
}

export async function run() {
  const ours = await buildProduction();
  const sdk = await buildSdkClient();
  const size = (f) => {
    const buf = readFileSync(f);
    return { bytes: statSync(f).size, gzip: gzipSync(buf, { level: 9 }).length };
  };
  const startup = await buildStartupOnly();
  const results = {
    ours: { file: 'bench/results/.build/prod/extension.js', ...size(ours.outfile), top: contributors(ours.metafile, ours.outfile).slice(0, 8) },
    startupOnly: { file: 'bench/results/.build/prod/startup-only.js', ...size(startup.outfile) },
    sdk: { file: 'bench/results/.build/sdk-client.js', ...size(sdk.outfile), top: contributors(sdk.metafile, sdk.outfile).slice(0, 8) },
  };
  const rounds = envNumber('BENCH_LOAD_ROUNDS', 7);
  const load = { ours: [], sdk: [] };
  const probe = join(benchDir, 'clients', 'require-time.cjs');
  for (let r = 0; r < rounds; r++) {
    for (const [k, args] of r % 2 ? [['sdk', [sdk.outfile]], ['ours', [ours.outfile, '--stub-vscode']]] : [['ours', [ours.outfile, '--stub-vscode']], ['sdk', [sdk.outfile]]]) {
      const p = spawnSync(process.execPath, [probe, ...args], { encoding: 'utf8' });
      if (p.status !== 0) throw new Error(`require-time ${k}: ${p.stderr}`);
      load[k].push(JSON.parse(p.stdout).ms);
    }
  }
  results.ours.requireMs = median(load.ours);
  results.sdk.requireMs = median(load.sdk);
  const kb = (b) => `${fmt(b / 1024)} KB`;
  return {
    results,
    targets: [verdict(results.ours.bytes < 150 * 1024, `production bundle under 150 KB: ${kb(results.ours.bytes)} (${fmt(results.ours.bytes / results.sdk.bytes)}x the SDK client's ${kb(results.sdk.bytes)})`)],
    table: {
      title: '4a. Size and load: our production bundle vs a client-only SDK bundle (both minified, platform node)',
      header: ['bundle', 'size', 'gzip', 'require() ms (median)', 'largest parts'],
      rows: [
        ['ours: dist/extension.js (whole extension)', kb(results.ours.bytes), kb(results.ours.gzip), fmt(results.ours.requireMs), results.ours.top.slice(0, 4).map(([k, b]) => `${k} ${kb(b)}`).join(', ')],
        ['ours, startup only: transports, forms, sampling, chat tools and API on demand (measured, not shipped)', kb(results.startupOnly.bytes), kb(results.startupOnly.gzip), '', ''],
        ['SDK: Client + stdio + Streamable HTTP transports', kb(results.sdk.bytes), kb(results.sdk.gzip), fmt(results.sdk.requireMs), results.sdk.top.slice(0, 4).map(([k, b]) => `${k} ${kb(b)}`).join(', ')],
      ],
    },
  };
}

