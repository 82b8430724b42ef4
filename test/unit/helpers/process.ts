// Whether a process runs, for tests that check a server's process ended.

/** Whether the process `pid` runs. */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
