/** What model choice needs to know of a model (the editor's `LanguageModelChat` has these). */
export interface ModelInfo {
  readonly id: string;
  readonly family: string;
  readonly name: string;
  readonly vendor: string;
}

export interface ModelChoice<M extends ModelInfo> {
  model: M;
  /** Why this model, for the log: `setting`, `hint "sonnet"` or `default`. */
  reason: string;
}

const lower = (s: string) => s.toLowerCase();

/**
 * Picks the model for a sampling request. In order:
 * 1. the user's `preferred` model (an id or a family, case-insensitive), when it is available;
 * 2. the server's hints, first hint first, each a substring of a model's id, family or name
 *    (the spec: "the client MUST evaluate them in order (such that the first match is taken)");
 * 3. the first model the editor lists.
 * Undefined when there is no model at all.
 */
export const chooseModel = <M extends ModelInfo>(models: readonly M[], hints: readonly string[], preferred?: string): ModelChoice<M> | undefined => {
  if (models.length === 0) return undefined;
  const want = preferred?.trim() ? lower(preferred.trim()) : undefined;
  if (want) {
    const m = models.find((x) => lower(x.id) === want) ?? models.find((x) => lower(x.family) === want);
    if (m) return { model: m, reason: 'setting' };
  }
  for (const hint of hints) {
    const h = lower(hint);
    if (!h) continue;
    const m = models.find((x) => [x.id, x.family, x.name].some((s) => lower(s).includes(h)));
    if (m) return { model: m, reason: `hint "${hint}"` };
  }
  return { model: models[0]!, reason: 'default' };
};
