import { stringify } from '../util/json';
/**
 * Splits a byte stream into newline-delimited lines (the stdio framing of MCP).
 *
 * Chunks are kept as they arrive and joined once per line, so a huge line costs O(n), not
 * O(n^2). A line longer than `maxLineBytes` is dropped whole (reported once) rather than held
 * in memory. Invalid UTF-8 becomes U+FFFD, which JSON parsing then rejects or keeps as text.
 */
export class LineBuffer {
  #chunks: Buffer[] = [];
  #size = 0;
  #discarding = false;
  readonly #maxLineBytes: number;

  constructor(maxLineBytes = 64 * 1024 * 1024) {
    this.#maxLineBytes = maxLineBytes;
  }

  /** Feeds bytes; calls `online` for each complete line and `onoverflow` for each dropped one. */
  push(chunk: Buffer, online: (line: string) => void, onoverflow?: (bytes: number) => void): void {
    const nl = chunk.indexOf(0x0a);
    if (nl === -1) return this.#hold(chunk, 0);
    // The first line ends whatever is held.
    this.#line(chunk, 0, nl, online, onoverflow);
    let start = nl + 1;
    if (start === chunk.length) return; // the usual case: one message per read
    const last = chunk.lastIndexOf(0x0a);
    if (last >= start) {
      if (last - start <= this.#maxLineBytes) {
        // Several whole lines, none over the limit: decoded at once (a newline byte is never part
        // of a UTF-8 sequence, so this reads exactly as line by line) and split as text.
        const text = chunk.toString(undefined, start, last); // undefined: UTF-8, without the encoding lookup
        for (let from = 0; ; ) {
          const i = text.indexOf('\n', from);
          const end = i === -1 ? text.length : i;
          const cut = end > from && text.charCodeAt(end - 1) === 0x0d ? end - 1 : end; // CRLF
          if (cut > from) online(text.slice(from, cut));
          if (i === -1) break;
          from = i + 1;
        }
      } else {
        for (let i = chunk.indexOf(0x0a, start); i !== -1; i = chunk.indexOf(0x0a, start)) {
          this.#line(chunk, start, i, online, onoverflow);
          start = i + 1;
        }
      }
      start = last + 1;
    }
    if (start < chunk.length) this.#hold(chunk, start);
  }

  /** One line, `chunk[from, nl)` after the bytes held: passed on, or dropped when over the limit. */
  #line(chunk: Buffer, from: number, nl: number, online: (line: string) => void, onoverflow?: (bytes: number) => void): void {
    if (this.#discarding) {
      onoverflow?.(this.#size + nl - from);
      this.reset();
      return;
    }
    // The usual case, a line within one chunk, is decoded straight from it: no copy, no slice.
    let line = chunk;
    let begin = from;
    let end = nl;
    if (this.#chunks.length > 0) {
      this.#chunks.push(chunk.subarray(from, nl));
      line = Buffer.concat(this.#chunks, this.#size + nl - from);
      begin = 0;
      end = line.length;
      this.reset();
    }
    if (end - begin > this.#maxLineBytes) {
      onoverflow?.(end - begin);
      return;
    }
    if (end > begin && line[end - 1] === 0x0d) end--; // CRLF
    if (end > begin) online(line.toString(undefined, begin, end));
  }

  /** Keeps `chunk[start..]`, the start of a line, unless it is already over the limit. */
  #hold(chunk: Buffer, start: number): void {
    const rest = chunk.subarray(start);
    this.#size += rest.length;
    if (this.#discarding) return;
    if (this.#size > this.#maxLineBytes) {
      // Too long already: stop holding it and skip to the next newline.
      this.#chunks = [];
      this.#discarding = true;
      return;
    }
    // Copy: the caller may reuse its buffer.
    this.#chunks.push(Buffer.from(rest));
  }

  reset(): void {
    this.#chunks = [];
    this.#size = 0;
    this.#discarding = false;
  }
}

/** One message as a line of the stdio framing. */
export const serializeLine = (message: object): string => stringify(message) + '\n';
