#!/usr/bin/env node
// Summarises a .cpuprofile written by `node --cpu-prof`: self time and total (inclusive) time
// per function, top N. Usage: node bench/lib/profile.mjs FILE.cpuprofile [N] [filter]
import { readFileSync } from 'node:fs';

export function summarize(file, top = 25, filter) {
  const prof = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const dt = new Map();
  for (let i = 0; i < prof.samples.length; i++) dt.set(prof.samples[i], (dt.get(prof.samples[i]) ?? 0) + (prof.timeDeltas[i] ?? 0));
  const total = [...dt.values()].reduce((a, b) => a + b, 0);
  const name = (n) => `${n.callFrame.functionName || '(anonymous)'} ${(n.callFrame.url || '').split('/').slice(-2).join('/')}:${n.callFrame.lineNumber + 1}`;
  const self = new Map();
  const incl = new Map();
  for (const [id, t] of dt) {
    const n = byId.get(id);
    self.set(name(n), (self.get(name(n)) ?? 0) + t);
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const k = name(byId.get(cur));
      if (seen.has(k)) continue;
      seen.add(k);
      incl.set(k, (incl.get(k) ?? 0) + t);
    }
  }
  const pick = (m) => [...m].filter(([k]) => !filter || k.includes(filter)).sort((a, b) => b[1] - a[1]).slice(0, top);
  return { totalMs: total / 1000, self: pick(self).map(([k, t]) => [k, t / 1000, (100 * t) / total]), inclusive: pick(incl).map(([k, t]) => [k, t / 1000, (100 * t) / total]) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, top = '25', filter] = process.argv.slice(2);
  const s = summarize(file, Number(top), filter);
  console.log(`total ${s.totalMs.toFixed(0)} ms sampled`);
  console.log('\nself time:');
  for (const [k, ms, pct] of s.self) console.log(`${pct.toFixed(1).padStart(5)}%  ${ms.toFixed(1).padStart(8)} ms  ${k}`);
  console.log('\ninclusive time:');
  for (const [k, ms, pct] of s.inclusive) console.log(`${pct.toFixed(1).padStart(5)}%  ${ms.toFixed(1).padStart(8)} ms  ${k}`);
}
