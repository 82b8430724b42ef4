const KEY = /[ \t]*(?:export[ \t]+)?([\w.-]+)(?:[ \t]*=|:(?=[ \t]))[ \t]*/y;
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t' };

/**
 * Reads a `.env` file the way dotenv (and VS Code's own `envFile`) does: `KEY=VALUE` or
 * `KEY: VALUE` lines, an optional `export ` prefix, `#` comments (whole lines, or from the first
 * `#` of an unquoted value: `A=b#c` is `b`, quote a value that holds one), values in single, double
 * or back quotes (which may span lines; `\n`, `\r`, `\t` are unescaped in double quotes only).
 * Lines it cannot read are skipped, as dotenv skips them. A later key wins.
 */
export const parseDotenv = (text: string): Record<string, string> => {
  const out: Record<string, string> = {};
  const src = text.replace(/\r\n?/g, '\n');
  let i = 0;
  while (i < src.length) {
    const eol = lineEnd(src, i);
    KEY.lastIndex = i;
    const m = KEY.exec(src);
    if (!m || m.index >= eol) {
      i = eol + 1; // blank, comment, or not a KEY= line
      continue;
    }
    let j = KEY.lastIndex;
    const quote = src[j];
    const close = quote === '"' || quote === "'" || quote === '`' ? findClose(src, j + 1, quote) : -1;
    let value: string;
    if (close >= 0) {
      value = src.slice(j + 1, close);
      if (quote === '"') value = value.replace(/\\([nrt"\\])/g, (_s, c: string) => ESCAPES[c] ?? c);
      j = lineEnd(src, close);
    } else {
      // Unquoted (or an unclosed quote): the rest of the line, less a `# comment`.
      value = src.slice(j, eol).replace(/#.*$/, '').trim();
      j = eol;
    }
    out[m[1]] = value;
    i = j + 1;
  }
  return out;
};

const lineEnd = (s: string, from: number): number => {
  const n = s.indexOf('\n', from);
  return n < 0 ? s.length : n;
};

/** The index of the closing quote, skipping backslash-escaped ones; -1 when there is none. */
const findClose = (s: string, from: number, quote: string): number => {
  for (let k = from; k < s.length; k++) {
    if (s[k] === '\\') k++;
    else if (s[k] === quote) return k;
  }
  return -1;
};
