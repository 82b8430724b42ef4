import { maxOf, minOf } from '../util/builtins';
import { splitsPair } from '../util/text';

/** Why generation ended, in the spec's words. */
export type StopReason = 'endTurn' | 'stopSequence' | 'maxTokens';

export interface CollectorOptions {
  maxTokens: number;
  stopSequences?: readonly string[];
  /** The model's own tokenizer. Without it (or when it fails) `maxTokens` is not enforced here. */
  countTokens?: (text: string) => PromiseLike<number>;
}

/**
 * Gathers a streamed answer and decides when to stop it. The editor's language model API has no
 * portable max-tokens or stop-sequence option (`modelOptions` are provider-specific, and an
 * unknown key can make a provider refuse the request), so both are enforced on the stream:
 * - a stop sequence cuts the text before it (`stopSequence`);
 * - `maxTokens` is measured with the model's tokenizer and the text cut to fit (`maxTokens`).
 * The tokenizer is asked rarely: every token holds at least one character, so the text cannot
 * exceed the budget before it has grown by as many characters as tokens were left.
 */
export class CompletionCollector {
  #text = '';
  #stopReason: Exclude<StopReason, 'endTurn'> | undefined;
  /** Text length at which the tokens are counted next. */
  #nextCheck: number;
  /** Tokens of the text at the last count, and that text's length. */
  #counted = { length: 0, tokens: 0 };
  /** Why the tokenizer could not be used, if it failed. */
  declare countError: unknown;
  readonly #options: CollectorOptions;

  constructor(options: CollectorOptions) {
    this.#options = options;
    this.#nextCheck = options.maxTokens;
  }

  get text(): string {
    return this.#text;
  }

  /** `endTurn` unless this collector stopped the answer. */
  get stopReason(): StopReason {
    return this.#stopReason ?? 'endTurn';
  }

  /** True once the answer must not grow: stop reading the stream. */
  get done(): boolean {
    return this.#stopReason !== undefined;
  }

  /** Adds a chunk; resolves true when generation should stop now. */
  async add(chunk: string): Promise<boolean> {
    if (this.done || chunk === '') return this.done;
    const before = this.#text.length;
    this.#text += chunk;
    this.#checkStopSequences(before);
    await this.#checkBudget();
    return this.done;
  }

  #checkStopSequences(before: number): void {
    let cut = -1;
    for (const s of this.#options.stopSequences ?? []) {
      // Only where the new chunk could complete it.
      const i = this.#text.indexOf(s, maxOf(0, before - s.length + 1));
      if (i >= 0 && (cut < 0 || i < cut)) cut = i;
    }
    if (cut < 0) return;
    this.#text = this.#text.slice(0, cut);
    this.#stopReason = 'stopSequence';
  }

  async #checkBudget(): Promise<void> {
    const count = this.#options.countTokens;
    if (!count || this.countError !== undefined || this.#text.length < this.#nextCheck) return;
    const max = this.#options.maxTokens;
    try {
      const tokens = await count(this.#text);
      if (tokens < max) {
        this.#counted = { length: this.#text.length, tokens };
        this.#nextCheck = this.#text.length + (max - tokens);
        return;
      }
      if (tokens > max) this.#text = this.#text.slice(0, await this.#longestFit(max));
      this.#stopReason = 'maxTokens';
    } catch (err) {
      this.countError = err;
    }
  }

  /**
   * The longest prefix length within budget that ends between two code points; the last count
   * under budget bounds the search.
   */
  async #longestFit(max: number): Promise<number> {
    const text = this.#text;
    let lo = minOf(this.#counted.length, text.length); // fits (a stop sequence may have cut below it)
    let hi = text.length; // does not fit
    while (hi - lo > 1) {
      let mid = (lo + hi) >> 1;
      // The position before the pair's high half is a boundary; else the one after its low half.
      if (splitsPair(text, mid)) mid = mid - 1 > lo ? mid - 1 : mid + 1;
      if (mid >= hi) break;
      if ((await this.#options.countTokens!(text.slice(0, mid))) <= max) lo = mid;
      else hi = mid;
    }
    // A chunk may have ended inside a pair at the last count; a shorter prefix fits too.
    return splitsPair(text, lo) ? lo - 1 : lo;
  }
}

/** The `CreateMessageResult` for a text answer. */
export const buildCreateMessageResult = (text: string, model: string, stopReason: StopReason): Record<string, unknown> => ({ role: 'assistant', content: { type: 'text', text }, model, stopReason });
