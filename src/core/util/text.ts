import { isWindows } from './builtins';

/** Whether cutting `text` at `i` would split a surrogate pair (an emoji, say) and leave half of it. */
export const splitsPair = (text: string, i: number): boolean => {
  const high = text.charCodeAt(i - 1);
  const low = text.charCodeAt(i);
  return high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
};

/** A server named in a message, as every message names one: `Server "lab"`. */
export const serverNamed = (label: string): string => `Server "${label}"`;

/** A count as the user's locale writes it: "1,000", not "1000". */
export const formatCount = (n: number): string => n.toLocaleString();

/** The first `max` characters of `text`, or one fewer where the cut would split a surrogate pair: no half emoji is shown. */
export const head = (text: string, max: number): string => text.slice(0, splitsPair(text, max) ? max - 1 : max);

/**
 * `text` as a file or folder name (a result's document, whose last name Save As suggests): '/',
 * '\\' and control characters become '_'; where the extension host runs on Windows, so do
 * `* ? " < > |`, and ':' becomes '∶' (U+2236, which reads alike), as Windows refuses them in
 * a name. Never '.', '..' or empty (the path would leave its folder); at most 99 characters.
 */
export const fileName = (text: string, windows = isWindows()): string => {
  const name = head(text.replace(windows ? /[/\\\p{Cc}*?"<>|]+/gu : /[/\\\p{Cc}]+/gu, '_'), 99);
  return /^\.*$/.test(name) ? '_' : windows ? name.replace(/:/g, '∶') : name;
};

/**
 * A server's text on one line, as it was sent: control, bidi and zero-width characters become
 * spaces (a U+202E would turn the rest of the line around, the editor's words after it included).
 */
export const oneLine = <T extends string | undefined>(text: T): T => text?.replace(/[\p{Cc}\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/gu, ' ') as T;

/**
 * A server's text in a notification, which makes links of `[label](url)` (a `command:` one runs
 * that command, with the server's arguments, at a click) but draws no icons: on one line
 * (`oneLine`), with no link; a `$(name)` reads as sent.
 */
export const unlinked = <T extends string | undefined>(text: T): T => oneLine(text)?.replace(/\]\((?=https?:|command:|file:)/gi, '] (') as T;

/**
 * A server's text in a quick input or a tooltip, which draw icons too: `unlinked`, and `$(name)`
 * stays text (`\$(`: else the editor draws one of its icons, a check or a shield).
 */
export const inert = <T extends string | undefined>(text: T): T => unlinked(text)?.replace(/\$\(/g, '\\$(') as T;
