// The Markdown document of a task's outcome: every block shown, and fences that hold whatever the
// server sent.
import * as assert from 'node:assert/strict';
import { formatOutcome, showsImage } from '../../../src/core/tasks/resultFormat';
import type { TaskSnapshot } from '../../../src/core/tasks/types';

/** A completed task whose result embeds `text` as a resource (shown in a fence). */
const withText = (text: string): TaskSnapshot => ({
  key: 'k',
  serverId: 's',
  taskId: 't',
  kind: 'task',
  toolName: 'tool',
  status: 'completed',
  createdAt: '2025-01-01T00:00:00.000Z',
  lastUpdatedAt: '2025-01-01T00:00:00.000Z',
  ttl: null,
  origin: 'user',
  outcome: { kind: 'result', result: { content: [{ type: 'resource', resource: { uri: 'file:///x.md', text } }] } },
});

describe('formatOutcome', () => {
  it('shows when the task was created and its result fetched in local time, as the row\'s tooltip does (localTime), not as the protocol\'s UTC ISO strings', () => {
    const t = { ...withText('x'), createdAt: '2026-12-04T23:41:00.000Z', outcomeFetchedAt: '2026-12-04T23:42:30.000Z' };
    const head = formatOutcome(t, 'lab').split('\n')[2];
    assert.equal(head, `Task \`t\`, created ${new Date(t.createdAt).toLocaleString()}, result fetched ${new Date(t.outcomeFetchedAt).toLocaleString()}.`);
    assert.doesNotMatch(head, /T23:4|Z\b/);
  });

  it('shows the tool name and the id that titles a task without one as sent in the heading: escaped, on one line, so no link, image, HTML or emphasis of the server\'s is made of them (a \'#\' in a heading\'s text is text)', () => {
    const heading = (t: Partial<TaskSnapshot>) => formatOutcome({ ...withText('x'), ...t }, 'lab [x](y)').split('\n').slice(0, 2);
    assert.deepEqual(heading({ toolName: '# x [y](https://evil) <img src=z> *a* _b_ `c` ~~d~~ $e$ &amp; \\\nf' }), ['# # x \\[y\\](https\\://evil) \\<img src=z> \\*a\\* \\_b\\_ \\`c\\` \\~\\~d\\~\\~ \\$e\\$ \\&amp; \\\\ f on lab \\[x\\](y): Completed', '']);
    assert.equal(heading({ toolName: '', taskId: '[a](b)<i>' })[0], '# Task \\[a\\](b)\\<i> on lab \\[x\\](y): Completed');
    // A name as tools are named stays as it reads: '_' between letters or digits makes no emphasis.
    assert.equal(heading({ toolName: 'get_weather_2.v1-x' })[0], '# get_weather_2.v1-x on lab \\[x\\](y): Completed');
  });

  it('escapes a colon in the heading only where a link could be made of it (a URL\'s ://, mailto:, command:), so a server or tool named with a port or a namespace reads as named in the source view', () => {
    const heading = (toolName: string, server = 'lab:8080') => formatOutcome({ ...withText('x'), toolName }, server).split('\n')[0];
    assert.equal(heading('ns:tool'), '# ns:tool on lab:8080: Completed');
    assert.equal(heading('a https://evil/x HTTP://e file:///f'), '# a https\\://evil/x HTTP\\://e file\\:///f on lab:8080: Completed');
    assert.equal(heading('mailto:a@b.c MailTo:d@e.f command:x Command:y'), '# mailto\\:a@b.c MailTo\\:d@e.f command\\:x Command\\:y on lab:8080: Completed');
    // No command: link is made of it where the editor finds a link, escaped or not (noCommands).
    assert.doesNotMatch(heading('[a](command:x) <command:y>'), /command:/);
  });

  it('shows any task id as sent in one code span: a backtick, a run of them or a line break in it cannot end the span early or start Markdown', () => {
    const line = (taskId: string) => formatOutcome({ ...withText('x'), taskId }, 'lab').split('\n').slice(2, 4);
    const head = (taskId: string) => line(taskId)[0].replace(/, created .*/, '');
    assert.equal(head('t'), 'Task `t`');
    assert.equal(head('a`b'), 'Task ``a`b``');
    assert.equal(head('`a'), 'Task `` `a ``', 'padded: a span cannot start with its fence\'s backtick');
    assert.equal(head('a``b`'), 'Task ``` a``b` ```');
    assert.equal(head(' a '), 'Task `  a  `', 'one space each side is stripped, so one more is added');
    // A line break would end the paragraph (a "# " after it a heading); in a code span it shows as a space.
    assert.deepEqual(line('x\n# y\r\n```'), [line('x # y ```')[0], '']);
    assert.equal(head('x # y ```'), 'Task ```` x # y ``` ````');
  });

  it('a direct call is named as such, not by the local id it is kept under (direct-…), which no server knows', () => {
    const t = { ...withText('x'), kind: 'direct' as const, taskId: 'direct-66c23d29', outcomeFetchedAt: '2026-12-04T23:42:30.000Z' };
    assert.equal(formatOutcome(t, 'lab').split('\n')[2], `Direct call, created ${new Date(t.createdAt).toLocaleString()}, result fetched ${new Date(t.outcomeFetchedAt).toLocaleString()}.`);
  });

  it('a result the user deleted (Clear Stored Results) is told as deleted, not as "No result has been fetched"; a direct call\'s note says it once', () => {
    const deleted = { ...withText('x'), outcome: undefined, resultDeleted: true as const };
    const task = formatOutcome(deleted, 'lab');
    assert.match(task, /_Its stored result was deleted\. Open Result fetches it again while its server keeps it\._/);
    assert.doesNotMatch(task, /No result has been fetched/);
    const call = formatOutcome({ ...deleted, kind: 'direct', note: 'Its stored result was deleted.' }, 'lab');
    assert.equal(call.match(/deleted/g)?.length, 1, call);
    assert.doesNotMatch(call, /No result has been fetched/);
    const forgot = formatOutcome({ ...deleted, note: 'Its stored result was deleted, and its server no longer has it.' }, 'lab');
    assert.equal(forgot.match(/deleted/g)?.length, 1, forgot);
    assert.match(formatOutcome({ ...withText('x'), outcome: undefined }, 'lab'), /_No result has been fetched for this task\._/);
  });

  it('a result kept whose file is missing or damaged, which its server did not give again, says so, not "No result has been fetched" under "result fetched" in its heading', () => {
    const doc = formatOutcome({ ...withText('x'), outcome: undefined, outcomeFetchedAt: '2025-01-01T00:00:01.000Z' }, 'lab');
    assert.match(doc, /\n_The result fetched then was kept, but its file is missing or damaged \(see the log\), and its server did not give it again\._\n/);
    const forgot = formatOutcome({ ...withText('x'), outcome: undefined, outcomeFetchedAt: '2025-01-01T00:00:01.000Z', note: 'The result kept for it is missing or damaged (see the log), and its server no longer has it.' }, 'lab');
    assert.equal(forgot.match(/missing or damaged/g)?.length, 1, forgot);
    assert.doesNotMatch(doc, /No result has been fetched/);
  });

  it('names the server in its heading, as the notifications do: two folders\' servers of one name run the same tool', () => {
    assert.equal(formatOutcome(withText('x'), 'lab (docs)').split('\n')[0], '# tool on lab (docs): Completed');
  });

  it('fences embedded text with more backticks than its longest run, and three at least', () => {
    assert.match(formatOutcome(withText('plain'), 'lab'), /\n```\nplain\n```\n/);
    assert.match(formatOutcome(withText('a ``` b ````` c'), 'lab'), /\n``````\na ``` b ````` c\n``````\n/);
  });

  it('closes a code fence that a text block left open, so the sections after it are not read as code; a closed one is left as it is', () => {
    const t = withText('');
    const text = (s: string) => ({ type: 'text', text: s });
    t.outcome = { kind: 'result', result: { content: [text('Summary:\n```python\nprint(1)'), text('~~~~\nstill open\n~~~\nnot closed by a shorter fence')], structuredContent: { ok: true } } };
    t.arguments = { q: 1 };
    const doc = formatOutcome(t, 'lab');
    assert.match(doc, /\n```python\nprint\(1\)\n```\n\n~~~~\nstill open\n~~~\nnot closed by a shorter fence\n~~~~\n\n## Structured content/);
    t.outcome = { kind: 'result', result: { content: [text('```\ncode\n```\nafter'), text('``` code ``` on one line is no fence')] } };
    assert.match(formatOutcome(t, 'lab'), /\n```\ncode\n```\nafter\n\n``` code ``` on one line is no fence\n\n## Arguments/, 'one blank line before a section, not two');
  });

  it("closes a code fence that a server's error message left open, so its error data is not read as part of it", () => {
    const doc = formatOutcome({ ...withText('x'), status: 'failed', outcome: { kind: 'error', error: { code: -32603, message: 'Traceback:\n```\nKeyError', data: { at: 1 } } } }, 'lab');
    assert.match(doc, /\n```\nKeyError\n```\n\nError data:\n\n```json\n/);
  });

  it("keeps a server's status message of several lines inside its quote: a line break no longer starts a heading or a list below it", () => {
    const doc = formatOutcome({ ...withText('x'), statusMessage: 'Done.\n# Heading\r\n- item' }, 'lab');
    assert.match(doc, /\n> Last status message: Done\.\n> # Heading\n> - item\n\n/);
  });

  it('keeps a resource link whole when its URI has spaces or parentheses and its title brackets', () => {
    const t = withText('');
    t.outcome = { kind: 'result', result: { content: [{ type: 'resource_link', uri: 'file:///my docs/report (final).md', name: 'r', title: 'Report [final]' }] } };
    assert.match(formatOutcome(t, 'lab'), /Resource link: \[Report \\\[final\\\]\]\(<file:\/\/\/my%20docs\/report%20\(final\)\.md>\)/);
  });

  it('makes no command: link of a server\'s text (a Ctrl+click on a link of a Markdown document runs its command): its colon reads alike (∶); other links stay', () => {
    const t = { ...withText(''), taskId: 'a` <command:workbench.action.openSettings>', statusMessage: 'see [here](command:x)' };
    const run = 'command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%20-rf%20~%5Cn%22%7D';
    const text = (s: string) => ({ type: 'text', text: s });
    t.outcome = {
      kind: 'result',
      result: {
        content: [
          { type: 'resource_link', uri: run, name: 'Open the report' },
          text(`[a](${run}) [b]( COMMAND:x) <Command:y>\n[ref]: command:z\n[ref2]:\n  <command:z>\n<a href="command:w">w</a> [ok](https://example.com/command:x)`),
        ],
      },
    };
    const doc = formatOutcome(t, 'lab');
    // Where the editor's Markdown support finds a link: inline, autolink, definition, HTML anchor.
    assert.doesNotMatch(doc, /(?:\]\(\s*<?|<|\]:\s*<?|=\s*["']?)command:/i);
    assert.match(doc, /\[Open the report\]\(<command∶workbench\.action\.terminal\.sendSequence\?/);
    assert.match(doc, /\[b\]\( COMMAND∶x\) <Command∶y>/);
    assert.match(doc, /\[ok\]\(https:\/\/example\.com\/command:x\)/, 'a link of another scheme is left as sent');
  });

  it('makes no command: link anywhere in the document: an audio block\'s or an embedded resource\'s type, a resource uri or an unknown block type that ends its code span, or a link split over two text blocks (the editor finds [a](…) across blank lines)', () => {
    const t = withText('');
    const cmd = 'command:workbench.action.terminal.sendSequence';
    t.outcome = {
      kind: 'result',
      result: {
        content: [
          { type: 'audio', mimeType: `[a](${cmd})`, data: '' },
          { type: 'resource', resource: { uri: `x\` [b](${cmd}) \``, mimeType: `<${cmd}>`, blob: '' } },
          { type: `x\` [c](${cmd}) \`` },
          { type: 'text', text: '[d](' },
          { type: 'text', text: `${cmd})` },
        ],
      },
    };
    assert.doesNotMatch(formatOutcome(t, 'lab'), /(?:\]\(\s*<?|<|\]:\s*<?|=\s*["']?)command:/i);
  });

  it('makes no command: link of an HTML attribute whose scheme or colon is written as a character reference (the editor decodes href and src values before it reads their scheme: `<a href="command&#58;x">` is a command: link); a reference elsewhere stays as sent', () => {
    const t = withText('');
    const forms = [
      '<a href="command&#58;x">a</a>',
      "<a href='command&colon;x'>a</a>",
      '<a title="t" href="&#99;ommand:x">a</a>',
      '<a href="comm&#97;nd&#x3A;x">a</a>',
      '<img src="command&#0058x">',
      '<video src="&#x63;&#x6f;mmand&#x3a;x"></video>',
      '<video><source src="command&#58;x"></video>',
      '<a href="command&#58;x"',
      '[a](command&#58;x) [r]: command&colon;x <command&#58;x>',
    ];
    t.outcome = { kind: 'result', result: { content: forms.map((text) => ({ type: 'text', text })) } };
    const doc = formatOutcome(t, 'lab');
    // As the editor reads an attribute's value: numeric references with or without ';', and &colon;.
    const decoded = doc.replace(/&#x([\da-f]+);?|&#(\d+);?|&colon;/gi, (_, hex?: string, dec?: string) => String.fromCodePoint(hex ? parseInt(hex, 16) : dec ? Number(dec) : 58));
    assert.doesNotMatch(decoded, /(?:\]\(\s*<?|<|\]:\s*<?|=\s*["']?)command:/i);
    assert.match(doc, /<a href="command&amp;#58;x">a<\/a>/, 'the text reads as sent: its reference is shown, not decoded');
    // A long run of spaces and references ends (no timing asserted: a lookbehind tried at each of
    // them, as a first version did, is quadratic and takes over a minute here, past mocha's timeout).
    const long = { ...t, outcome: { kind: 'result' as const, result: { content: [{ type: 'text' as const, text: `<a href="${'a&#97'.repeat(100_000)}${' '.repeat(200_000)}&#97` }] } } };
    assert.match(formatOutcome(long, 'lab'), /<a href="a&amp;#97a&#97/, 'the first reference of the run is shown as text');
    assert.match(formatOutcome({ ...t, outcome: { kind: 'result', result: { content: [{ type: 'text', text: 'Q&amp;A: <b>R&#38;D</b> at <a href="https://x.example/?a=1&amp;b=2">x</a>' }] } } }, 'lab'), /Q&amp;A: <b>R&#38;D<\/b> at <a href="https:\/\/x\.example\/\?a=1&amp;b=2">x<\/a>/, 'a reference elsewhere is left as sent');
  });

  it('shows as sent a character reference after `=`, `<` or `](` that makes no scheme: one of a letter, a colon, a space or a control character is shown as text, any other (`&#169;`, `&#x2014;`) is the character; `&#` and letters without the `x` (`&#abc`) are no reference, and read as sent', () => {
    const doc = (text: string) => formatOutcome({ ...withText(''), outcome: { kind: 'result', result: { content: [{ type: 'text', text }] } } }, 'lab');
    const prose = 'x = &#169; and y=&#x2014;, <&#8364;> [a](&#x1F600;) z = &#; &#x; &amp; &lt; w = &#abc; <a href="&#e9;">';
    assert.ok(doc(prose).includes(`\n${prose}\n`), doc(prose));
    for (const [sent, shown] of [
      ['x = &#58;', 'x = &amp;#58;'],
      ['<a href="&#X63;ommand:x">', '<a href="&amp;#X63;ommand:x">'],
      ['<a href="&#00000099ommand:x">', '<a href="&amp;#00000099ommand:x">'],
      ['<a href="&#32;command:x">', '<a href="&amp;#32;command:x">'],
      ['<a href="&#x9;command:x">', '<a href="&amp;#x9;command:x">'],
      ['<a href="comm&#x41;nd&#58;x">', '<a href="comm&amp;#x41;nd&#58;x">'],
      ['<a href="comm&#169;&#97;nd&#58;x">', '<a href="comm&#169;&#97;nd&#58;x">'],
    ]) {
      assert.ok(doc(sent).includes(`\n${shown}\n`), `${sent}: ${doc(sent)}`);
    }
  });

  it('describes audio and binary resources by size, and does not promise to keep what it does not show', () => {
    const t = withText('');
    t.outcome = { kind: 'result', result: { content: [{ type: 'audio', mimeType: 'audio/wav', data: 'A'.repeat(4096) }, { type: 'resource', resource: { uri: 'file:///x.bin', blob: 'A'.repeat(2048) } }] } };
    const doc = formatOutcome(t, 'lab');
    assert.match(doc, /_Audio \(audio\/wav, 3 KB\): not shown here\._/);
    assert.match(doc, /Embedded resource `file:\/\/\/x\.bin`: 2 KB of binary data/);
    assert.doesNotMatch(doc, /save/);
  });

  it('shows an image as a data: link the Markdown preview renders; a type or data that could break out of the link is not shown', () => {
    const t = withText('');
    const png = 'iVBORw0KGgo=';
    t.outcome = { kind: 'result', result: { content: [{ type: 'image', mimeType: 'image/png', data: png }] } };
    const doc = formatOutcome(t, 'lab');
    assert.ok(doc.includes(`![image (image/png)](data:image/png;base64,${png})`), doc);
    assert.ok(showsImage(t));
    t.outcome = {
      kind: 'result',
      result: {
        content: [
          { type: 'image', mimeType: 'image/png) ![x](https://example.com/pixel', data: png },
          { type: 'image', mimeType: 'image/png', data: 'AA) ![x](https://example.com/pixel' },
        ],
      },
    };
    const bad = formatOutcome(t, 'lab');
    assert.doesNotMatch(bad, /\]\(https:/);
    assert.equal(bad.match(/_Image \(0 KB\): not shown, as its type or data is not valid\._/g)?.length, 2, bad);
    assert.ok(!showsImage(t));
    assert.ok(!showsImage(withText('text only')));
    assert.ok(!showsImage(undefined));
    // A server's text that reads as an image line does not open the preview, which loads the https images its text names (a tracking pixel learns the user's IP).
    t.outcome = { kind: 'result', result: { content: [{ type: 'text', text: `![image (image/png)](data:image/png;base64,${png})\n![x](https://example.com/pixel)` }] } };
    assert.ok(!showsImage(t));
  });

  it('opens a result with an image in the preview only when nothing else of the server\'s could fetch from the network there (the preview loads https images: a tracking pixel learns the user\'s IP): an image or HTML tag in its text, a status message, a note or a type, or a Mermaid diagram, opens it as text', () => {
    const png = { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' };
    const withImage = (block: Record<string, unknown>, more: Partial<TaskSnapshot> = {}): TaskSnapshot => ({ ...withText(''), ...more, outcome: { kind: 'result', result: { content: [png, block] as never } } });
    const text = (s: string) => ({ type: 'text', text: s });
    assert.ok(showsImage(withImage(text('The chart of x < 5: see [the data](https://example.com/data) or https://example.com.'))), 'text that makes no image, tag or diagram shows in the preview');
    for (const t of [
      withImage(text('![x](https://tracker.example/p.png)')),
      withImage(text('![x][p]\n\n[p]: https://tracker.example/p.png')),
      withImage(text('<img src="https://tracker.example/p.png">')),
      withImage(text('<p style="background:url(https://tracker.example/p.png)">a</p>')),
      withImage(text('```mermaid\nflowchart LR\n  A@{ img: "https://tracker.example/p.png" }\n```')),
      withImage(text('a'), { statusMessage: '<img src=https://tracker.example/p.png>' }),
      withImage({ type: 'audio', mimeType: 'audio/<img src=https://tracker.example/p.png>', data: '' }),
      withImage({ type: 'resource_link', uri: 'https://example.com/r', name: 'r', description: '![x](https://tracker.example/p.png)' }),
    ]) {
      assert.match(formatOutcome(t, 'lab'), /tracker\.example/);
      assert.ok(!showsImage(t), JSON.stringify(t.outcome));
    }
  });

  it('a CommonMark autolink (<https://…>, <mailto:…>) is no HTML and loads nothing: the result still opens in the preview; every tag, and a `<` that only starts like one, still opens it as text', () => {
    const png = { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' };
    const shows = (s: string, more: Partial<TaskSnapshot> = {}) => showsImage({ ...withText(''), ...more, outcome: { kind: 'result', result: { content: [png, { type: 'text', text: s }] as never } } });
    assert.ok(shows('See <https://example.com/x?a=1&b="2"> or <mailto:a@b.c>, <HTTPS://EXAMPLE.COM>, <vscode-insiders:x>.'));
    assert.ok(shows('a', { statusMessage: 'Report at <https://example.com/r>' }));
    for (const s of [
      '<img src="https://tracker.example/p.png">',
      '<IMG SRC=https://tracker.example/p.png>',
      '<svg><image href="https://tracker.example/p.png"/></svg>',
      '<picture><source srcset="https://tracker.example/p.png"></picture>',
      '<a href="https://example.com">x</a>',
      'List<T> of <T>',
      '<https://example.com/x><img src=https://tracker.example/p.png>',
      '<https://example.com/<img src=https://tracker.example/p.png>',
      '<svg:image href="https://tracker.example/p.png">',
      '<a@b.c>',
      '<https://example.com/x y>',
    ]) {
      assert.ok(!shows(s), s);
    }
  });

  it('formats a result with 200,000 runs of backticks (it used to overflow the stack)', () => {
    const text = '`a'.repeat(200_000);
    const doc = formatOutcome(withText(text), 'lab');
    assert.ok(doc.includes(`\n\`\`\`\n${text}\n\`\`\`\n`));
  });

  it('formats a result whose structuredContent and error data are nested 10,000 deep (JSON.stringify overflows the stack): the deepest parts become a placeholder', () => {
    let deep: unknown = [];
    for (let i = 0; i < 10_000; i++) deep = [deep];
    const result = formatOutcome({ ...withText('x'), outcome: { kind: 'result', result: { content: [{ type: 'text', text: 'ok' }], structuredContent: { deep } } } }, 'lab');
    assert.match(result, /^ok$/m);
    assert.match(result, /## Structured content\n\n```json\n\{\n {2}"deep": \[/);
    assert.ok(result.includes('"<nested too deeply to show>"'), 'the placeholder');
    assert.ok(result.length < 50_000, `${result.length} characters`);
    const error = formatOutcome({ ...withText('x'), status: 'failed', outcome: { kind: 'error', error: { code: -32603, message: 'deep', data: deep } } }, 'lab');
    assert.ok(error.includes('"<nested too deeply to show>"'));
  });
});
