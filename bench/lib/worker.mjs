// Benchmark clients run in child processes of their own, so process.cpuUsage() in each one is
// that client's CPU and nothing else. The parent drives them over the IPC channel, one command
// at a time, and only between measurements (the IPC traffic is not measured).
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { resultsDir } from './common.mjs';

/** In a child: answers the parent's commands with `handlers[cmd](args)`. */
export function serveWorker(handlers) {
  process.on('message', async (m) => {
    if (!m || typeof m.cmd !== 'string') return;
    try {
      const fn = handlers[m.cmd];
      if (!fn) throw new Error(`unknown command ${m.cmd}`);
      const result = await fn(m.args ?? {});
      process.send({ id: m.id, ok: true, result });
    } catch (e) {
      process.send({ id: m.id, ok: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    }
  });
  // The parent going away ends the child (and the child's servers through their stdin).
  process.on('disconnect', () => process.exit(0));
  process.send({ ready: true });
}

/**
 * In the parent: forks `file` with `args` and resolves once it is ready. `call(cmd, args)`
 * runs one command; `close()` asks it to stop and ends it if it does not.
 */
export function startWorker(file, args = [], { execArgv = [], name = file } = {}) {
  // BENCH_PROFILE=1: every client writes a CPU profile to bench/results/profiles/ when it exits.
  const profile = process.env.BENCH_PROFILE === '1' ? ['--cpu-prof', `--cpu-prof-dir=${join(resultsDir, 'profiles')}`, `--cpu-prof-name=${name.replace(/\W+/g, '-')}-${Date.now()}.cpuprofile`] : [];
  const child = fork(file, args, { execArgv: [...execArgv, ...profile], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map();
  let nextId = 1;
  let exited = false;
  const exit = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
  void exit.then(({ code, signal }) => {
    exited = true;
    for (const p of pending.values()) p.reject(new Error(`${name} exited (${code ?? signal}) during ${p.cmd}`));
    pending.clear();
  });
  const ready = new Promise((resolve, reject) => {
    const onMessage = (m) => {
      if (m?.ready) return resolve();
      const p = pending.get(m?.id);
      if (!p) return;
      pending.delete(m.id);
      if (m.ok) p.resolve(m.result);
      else p.reject(new Error(`${name}: ${m.error}`));
    };
    child.on('message', onMessage);
    void exit.then(({ code, signal }) => reject(new Error(`${name} exited (${code ?? signal}) before it was ready`)));
  });
  const worker = {
    name,
    pid: child.pid,
    call(cmd, cmdArgs) {
      if (exited) return Promise.reject(new Error(`${name} is not running`));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject, cmd });
        child.send({ id, cmd, args: cmdArgs });
      });
    },
    async close() {
      if (exited) return;
      await worker.call('stop').catch(() => {});
      child.disconnect?.();
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exit;
      clearTimeout(t);
    },
  };
  return ready.then(() => worker);
}
