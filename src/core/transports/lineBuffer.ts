/**
 * Splits a byte stream into newline-delimited lines (the stdio framing of MCP).
 *
 * Chunks are kept as they arrive and joined once per line, so a huge line costs O(n), not
 * O(n^2). A line longer than `maxLineBytes` is dropped whole (reported once) rather than held
 * in memory. Invalid UTF-8 becomes U+FFFD, which JSON parsing then rejects or keeps as text.
 */
export class LineBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  private discarding = false;

  constructor(private readonly maxLineBytes = 64 * 1024 * 1024) {}

  /** Feeds bytes; calls `online` for each complete line and `onoverflow` for each dropped one. */
  push(chunk: Buffer, online: (line: string) => void, onoverflow?: (bytes: number) => void): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) break;
      const part = chunk.subarray(start, nl);
      start = nl + 1;
      if (this.discarding) {
        onoverflow?.(this.size + part.length);
        this.reset();
        continue;
      }
      let line: Buffer;
      if (this.chunks.length === 0) line = part;
      else {
        this.chunks.push(part);
        line = Buffer.concat(this.chunks, this.size + part.length);
      }
      this.reset();
      if (line.length > this.maxLineBytes) {
        onoverflow?.(line.length);
        continue;
      }
      const text = line.toString('utf8');
      const trimmed = text.endsWith('\r') ? text.slice(0, -1) : text;
      if (trimmed.length > 0) online(trimmed);
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.size += rest.length;
      if (this.discarding) return;
      if (this.size > this.maxLineBytes) {
        // Too long already: stop holding it and skip to the next newline.
        this.chunks = [];
        this.discarding = true;
        return;
      }
      // Copy: the caller may reuse its buffer.
      this.chunks.push(Buffer.from(rest));
    }
  }

  /** Bytes held for an unfinished line. */
  get pending(): number {
    return this.size;
  }

  reset(): void {
    this.chunks = [];
    this.size = 0;
    this.discarding = false;
  }
}

/** One message as a line of the stdio framing. */
export function serializeLine(message: object): string {
  return JSON.stringify(message) + '\n';
}
