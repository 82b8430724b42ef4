/**
 * A yes/no kept in sync with `set` (a context key: setting one is a message to the workbench), which
 * is called only when the value changes. `put` gives the value at once; `check` works it out with
 * `compute` in a microtask, once for a burst of calls; `now` at once (a key that must be known
 * before the one set next).
 */
export const syncedFlag = (compute: () => boolean, set: (value: boolean) => unknown) => {
  let last: boolean | undefined;
  let queued = false;
  const put = (value: boolean) => value !== last && set((last = value));
  return {
    put,
    now: () => put(compute()),
    check() {
      if (queued) return;
      queued = true;
      queueMicrotask(() => {
        queued = false;
        put(compute());
      });
    },
  };
};
