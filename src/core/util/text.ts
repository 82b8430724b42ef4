/** Whether cutting `text` at `i` would split a surrogate pair (an emoji, say) and leave half of it. */
export const splitsPair = (text: string, i: number): boolean => {
  const high = text.charCodeAt(i - 1);
  const low = text.charCodeAt(i);
  return high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
};

/** The first `max` characters of `text`, or one fewer where the cut would split a surrogate pair: no half emoji is shown. */
export const head = (text: string, max: number): string => text.slice(0, splitsPair(text, max) ? max - 1 : max);
