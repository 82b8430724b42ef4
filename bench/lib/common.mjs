// Paths, statistics and the table shared by every benchmark.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const benchDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const repoRoot = resolve(benchDir, '..');
export const resultsDir = join(benchDir, 'results');
export const buildDir = join(resultsDir, '.build');
export const serversDir = join(benchDir, 'servers');

/** Wall clock in ms with sub-ms precision, comparable between processes of one machine. */
export const wallNow = () => performance.timeOrigin + performance.now();

/** CPU (user + system) of this process in µs since `from` (a `process.cpuUsage()` value). */
export function cpuSince(from) {
  const d = process.cpuUsage(from);
  return d.user + d.system;
}

export function median(values) {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return NaN;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

export function quantile(values, q) {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return NaN;
  return v[Math.min(v.length - 1, Math.max(0, Math.ceil(q * v.length) - 1))];
}

export function max(values) {
  return values.reduce((m, x) => (x > m ? x : m), -Infinity);
}

/** A number for a table cell: few significant digits, thousands apart. */
export function fmt(x, digits = 3) {
  if (x === undefined || x === null || Number.isNaN(x)) return '-';
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  const d = a >= 100 ? 0 : a >= 10 ? Math.max(0, digits - 2) : a >= 1 ? digits - 1 : digits;
  return x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: 0 });
}

/** Prints rows (arrays of cells) as an aligned table under a title. */
export function printTable(title, header, rows) {
  const all = [header, ...rows].map((r) => r.map((c) => String(c)));
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(`\n${title}`);
  console.log(line(all[0]));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of all.slice(1)) console.log(line(r));
}

/** Verdict for a target: `met` / `MISSED` with the figures. */
export function verdict(ok, text) {
  return { ok, text: `${ok ? 'met   ' : 'MISSED'} ${text}` };
}

export function envNumber(name, fallback) {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got ${v}`);
  return n;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
