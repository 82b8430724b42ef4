import { isString, safeStringify } from '../util/json';
import { keysOf, round } from '../util/builtins';
import { oneLine } from '../util/text';
import type { TaskSnapshot } from './types';
import { localTime, STATUS_PRESENTATION, taskTitle } from './presentation';
import { DELETED, DIRECT, UNREADABLE } from './types';

type Block = Record<string, unknown> & { type: string };

const str = (v: unknown): string => (isString(v) ? v : '');

/** Whether an image block makes a link: only a plain type and base64 do, as anything else could close it and add a link of its own. */
const isImage = (b: Block): boolean => b.type === 'image' && /^image\/[\w.+-]{1,100}$/.test(str(b.mimeType)) && /^[A-Za-z0-9+/]*={0,2}$/.test(str(b.data));

/**
 * Whether a task's document shows an image, which only a Markdown preview renders: its result has
 * an image block that makes a link. Not read off the document: a server's text that reads as an
 * image line would open the preview, which loads the https images its text names. Nor when
 * anything else of the server's could fetch there (a tracking pixel learns the user's IP): an
 * image or HTML tag, or a Mermaid diagram (its nodes take images); such a document opens as text.
 * An autolink (`<https://…>`: a scheme, then no space, `<` or `>`) is no tag: no tag name holds a colon.
 */
export const showsImage = (t?: TaskSnapshot): boolean => {
  if (t?.outcome?.kind !== 'result') return false;
  const blocks = t.outcome.result.content as Block[];
  return blocks.some(isImage) && !/!\[|<(?![a-z][a-z\d+.-]{1,31}:[^\s<>]*>)[a-z]|mermaid/i.test(safeStringify([t.statusMessage, t.note, blocks.filter((b) => !isImage(b))]));
};
/** The size of base64 data once decoded, in KB. */
const kb = (base64: string): number => round((base64.length * 3) / 4 / 1024);

/**
 * Backticks that `body` cannot close early: more than its longest run, and `least + 1` at least.
 * Counted in a loop, as spreading one argument per run into Math.max overflows the stack on large
 * results.
 */
const ticks = (body: string, least: number): string => {
  let run = 0;
  for (let i = 0; i < body.length; i++) {
    run = body[i] === '`' ? run + 1 : 0;
    if (run > least) least = run;
  }
  return '`'.repeat(least + 1);
};

/** A fence that the content cannot close early. */
const fence = (body: string, lang = ''): string => {
  const t = ticks(body, 2);
  return `${t}${lang}\n${body}\n${t}`;
};

/** A value as JSON, in a fence. */
const json = (v: unknown): string => fence(safeStringify(v, 2), 'json');

/**
 * Inline text as sent, in a code span that it cannot close early; padded where Markdown would
 * strip a space or the span could not start (a backtick at an end). A line break would end the
 * paragraph: in a span it shows as a space, so line breaks are one.
 */
const code = (text: string): string => {
  const t = ticks(text, 0);
  const pad = /^[ `]|[ `]$/.test(text) ? ' ' : '';
  return `${t}${pad}${text.replace(/[\r\n]+/g, ' ')}${pad}${t}`;
};

/**
 * A server's text as sent in a line of Markdown (the heading): on one line, and no link, image,
 * HTML, emphasis, code or math made of it. A ':' is escaped where a link could be made of it: the
 * preview and the editor make one of a bare URL (`https://`, `mailto:`), and `command:` never
 * reads as one; any other (`lab:8080`, `ns:tool`) makes none and reads as sent. '_' between
 * letters or digits makes none either (tool names hold it): left as it reads.
 */
const plain = (text: string): string => oneLine(text).replace(/[\\`*[\]<&~$]|\b_|_\b|:(?=\/)|(?<=\b(?:mailto|command)):/gi, '\\$&');

/**
 * Markdown text as the server sent it, with a code fence it left open closed at its end: else
 * everything after it in the document (structured content, arguments) would read as code.
 */
const closeFences = (text: string): string => {
  let open: string | undefined;
  for (const line of text.split('\n')) {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (!m) continue;
    if (!open) {
      if (!(m[1][0] === '`' && m[2].includes('`'))) open = m[1];
    } else if (m[1][0] === open[0] && m[1].length >= open.length && !m[2].trim()) open = undefined;
  }
  return open ? `${text}\n${open}` : text;
};

/**
 * A server's Markdown with no `command:` link: a Ctrl+click on a link of a Markdown document runs
 * a command one, with the server's arguments (`workbench.action.terminal.sendSequence` types into
 * a terminal). Where the editor finds a link (`](`, `<`, a definition's `]:`, an HTML `href=`),
 * its colon becomes '∶' (U+2236), which reads alike; a link of another scheme stays as sent.
 * Run on the whole document: the editor finds `[a](` and `command:…)` of two blocks as one link
 * across the blank line, and any text of the server's (a type, a uri) may end the code span it
 * is put in; inside a fence, where no link is found, such a colon reads alike too. The editor
 * decodes an HTML attribute's character references before it reads the scheme
 * (`href="comm&#97;nd&#58;x"`): the first one of a scheme is shown as text (`&amp;#97;`), and
 * what follows makes no scheme. Only one a scheme may hold, or that the URL parser strips (a
 * letter, a colon, a space or a control character): any other (`x = &#169;`) is no scheme's and
 * shows as the character. `&` first: a lookbehind tried at every space is quadratic.
 */
const noCommands = (md: string): string =>
  md
    // `&#` then no digit (`&#abc`) is no reference: it reads as sent, as the editor and the preview read it.
    .replace(/&(?<=(?:\]\(|\]:|[<=])\s*["'<]?[a-z]{0,7}&)(?=#(?:x([\da-f]+)|(\d+))|colon)/gi, (m, x?: string, d?: string) =>
      // NaN (`&colon;`) is U+0000; past U+FFFF a code wraps: neither shows less as text.
      /[\0- :a-z]/i.test(String.fromCharCode(x ? parseInt(x, 16) : +d!)) ? '&amp;' : m,
    )
    .replace(/(?<=(?:\]\(|\]:|[<=])\s*["'<]?command):/gi, '∶');

/** A Markdown link that any label and URI keep whole: brackets escaped, the URI between `<>`. */
const link = (label: string, uri: string): string => `[${label.replace(/[[\]\\]/g, '\\$&')}](<${uri.replace(/[<>\s]/g, encodeURIComponent)}>)`;

const block = (b: Block): string => {
  // Of an image or audio.
  const type = str(b.mimeType);
  const data = str(b.data);
  switch (b.type) {
    case 'text':
      return closeFences(str(b.text));
    case 'image':
      return isImage(b) ? `![image (${type})](data:${type};base64,${data})` : `_Image (${kb(data)} KB): not shown, as its type or data is not valid._`;
    case 'audio':
      return `_Audio (${type}, ${kb(data)} KB): not shown here._`;
    case 'resource_link':
      return `Resource link: ${link(str(b.title) || str(b.name) || str(b.uri), str(b.uri))}${b.description ? ` — ${str(b.description)}` : ''}`;
    case 'resource': {
      const r = (b.resource ?? {}) as Record<string, unknown>;
      const head = `Embedded resource ${code(str(r.uri))}${r.mimeType ? ` (${str(r.mimeType)})` : ''}`;
      if (isString(r.text)) return `${head}\n\n${fence(r.text)}`;
      return `${head}: ${kb(str(r.blob))} KB of binary data`;
    }
    default:
      return `Unknown content type ${code(b.type)}:\n\n${json(b)}`;
  }
};

/**
 * A task's outcome as Markdown, for a read-only document: every content block, structured
 * content as JSON, an error result marked as such, and a JSON-RPC error with its payload. The
 * heading names the `server`, as the notifications do.
 */
export const formatOutcome = (t: TaskSnapshot, server: string): string => {
  const lines: string[] = [`# ${plain(`${taskTitle(t)} on ${server}`)}: ${STATUS_PRESENTATION[t.status].label}`, ''];
  // A direct call's id is a local one (direct-…) that no server knows: not shown.
  lines.push(`${t.kind === DIRECT ? 'Direct call' : `Task ${code(t.taskId)}`}, created ${localTime(t.createdAt)}${t.outcomeFetchedAt ? `, result fetched ${localTime(t.outcomeFetchedAt)}` : ''}.`, '');
  // Each of its lines in the quote: one out of it could start a heading or a list.
  if (t.statusMessage) lines.push(`> Last status message: ${t.statusMessage.replace(/\r?\n/g, '\n> ')}`, '');
  if (t.note) lines.push(`_${t.note}_`, '');
  const o = t.outcome;
  if (!o) {
    if (!t.resultDeleted) {
      // A kept one whose file is missing or damaged: its note says so once its server forgot it.
      if (!t.note?.includes(UNREADABLE)) lines.push(t.outcomeFetchedAt ? `_The result fetched then was kept, but its file is ${UNREADABLE}, and its server did not give it again._` : '_No result has been fetched for this task._');
    } else if (!t.note?.startsWith(DELETED)) {
      // Clear Stored Results deleted it: it was fetched. A note that says so says it (a direct call's, one its server forgot).
      lines.push(`_${DELETED}. Open Result fetches it again while its server keeps it._`);
    }
  } else if (o.kind === 'error') {
    lines.push(`## ❌ The server answered with error ${o.error.code}`, '', closeFences(o.error.message), '');
    if (o.error.data !== undefined) lines.push('Error data:', '', json(o.error.data));
  } else {
    const r = o.result;
    if (r.isError) lines.push('## ❌ The tool reported an error (isError)', '');
    for (const b of r.content as Block[]) lines.push(block(b), '');
    if (r.content.length === 0) lines.push('_The result has no content._', '');
    if (r.structuredContent !== undefined) lines.push('## Structured content', '', json(r.structuredContent));
  }
  if (t.arguments && keysOf(t.arguments).length) lines.push(...(lines.at(-1) ? [''] : []), '## Arguments', '', json(t.arguments));
  return noCommands(lines.join('\n').trimEnd() + '\n');
};
