// Benchmark 1: tools/call round trips over stdio against bench/servers/echo-server.mjs (SDK
// server side), 1 KB argument, sequential and 64 in flight, for our core, the SDK's Client and
// a bare client (the floor). Every client runs in its own process; the rounds alternate between
// them (the order rotates every round) so drifts in machine load hit all three alike.
import { join } from 'node:path';
import { benchDir, envNumber, fmt, median, verdict } from './lib/common.mjs';
import { startWorker } from './lib/worker.mjs';

export const KINDS = ['ours', 'sdk', 'bare'];
const LABEL = { ours: 'ours (McpSession + StdioTransport)', sdk: 'SDK Client + StdioClientTransport', bare: 'bare client (floor)' };

export async function run(log = console.log) {
  const rounds = envNumber('BENCH_ROUNDS', 15);
  const seqCalls = envNumber('BENCH_RT_CALLS', 3000);
  const parCalls = seqCalls * 2;
  const bytes = 1024;
  const modes = [
    { mode: 'sequential', calls: seqCalls, inflight: 1 },
    { mode: '64 in flight', calls: parCalls, inflight: 64 },
  ];
  const workers = {};
  try {
    for (const k of KINDS) {
      workers[k] = await startWorker(join(benchDir, 'clients', 'roundtrip-client.mjs'), [k], { name: `roundtrip ${k}` });
      await workers[k].call('start');
    }
    // Warm-up: JIT and buffers, not measured.
    for (const k of KINDS) for (const m of modes) await workers[k].call('round', { calls: Math.min(500, m.calls), inflight: m.inflight, bytes });
    const samples = {};
    for (let r = 0; r < rounds; r++) {
      const order = KINDS.map((_, i) => KINDS[(i + r) % KINDS.length]);
      for (const m of modes) {
        for (const k of order) {
          const s = await workers[k].call('round', { calls: m.calls, inflight: m.inflight, bytes });
          ((samples[m.mode] ??= {})[k] ??= []).push(s);
        }
      }
      log(`  round trips: round ${r + 1}/${rounds} done`);
    }
    const results = {};
    for (const m of modes) {
      for (const k of KINDS) {
        const list = samples[m.mode][k];
        (results[m.mode] ??= {})[k] = {
          cpuUsPerCall: median(list.map((s) => s.cpuUs / s.calls)),
          callsPerSec: median(list.map((s) => s.calls / (s.wallMs / 1000))),
          rounds: list.map((s) => ({ cpuUsPerCall: s.cpuUs / s.calls, callsPerSec: s.calls / (s.wallMs / 1000) })),
        };
      }
      const r = results[m.mode];
      // Ratios from the per-round pairs (the sides of one round ran back to back), then the median.
      const ratio = (a, b) => median(samples[m.mode][a].map((s, i) => s.cpuUs / s.calls / (samples[m.mode][b][i].cpuUs / samples[m.mode][b][i].calls)));
      r.ratios = { oursOverBare: ratio('ours', 'bare'), sdkOverBare: ratio('sdk', 'bare'), sdkOverOurs: ratio('sdk', 'ours') };
      for (const k of KINDS) r[k].overBare = ratio(k, 'bare');
    }
    const seq = results.sequential.ratios;
    const par = results['64 in flight'].ratios;
    const targets = [
      verdict(seq.oursOverBare <= 1.2, `ours ≤ 1.2x bare CPU/call (sequential): ${fmt(seq.oursOverBare)}x; 64 in flight: ${fmt(par.oursOverBare)}x`),
      verdict(seq.sdkOverBare >= 1.6, `bare ≥ 1.6x less CPU/call than the SDK (sequential): ${fmt(seq.sdkOverBare)}x; 64 in flight: ${fmt(par.sdkOverBare)}x`),
    ];
    const rows = [];
    for (const m of modes) {
      for (const k of KINDS) {
        const x = results[m.mode][k];
        rows.push([m.mode, LABEL[k], fmt(x.cpuUsPerCall), fmt(x.overBare), fmt(x.callsPerSec)]);
      }
    }
    return {
      config: { rounds, seqCalls, parCalls, argumentBytes: bytes, server: 'bench/servers/echo-server.mjs (SDK Server over stdio)' },
      results,
      targets,
      table: { title: '1. Round trips: tools/call echo, 1 KB argument, stdio (client CPU per call; ratio = per-round ratio to bare, median)', header: ['mode', 'client', 'CPU µs/call', 'x bare', 'calls/s'], rows },
    };
  } finally {
    for (const w of Object.values(workers)) await w.close();
  }
}
