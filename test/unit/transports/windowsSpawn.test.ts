import * as assert from 'node:assert/strict';
import { quoteArg, windowsSpawn } from '../../../src/core/transports/windowsSpawn';
import type { WindowsSpawn } from '../../../src/core/transports/windowsSpawn';

const NODE_DIR = 'C:\\Program Files\\nodejs';
const COMSPEC = 'C:\\Windows\\system32\\cmd.exe';
const CWD = 'C:\\work\\project';
const ENV = {
  Path: `${NODE_DIR};C:\\Windows\\system32;C:\\tools;${CWD}\\node_modules\\.bin`,
  PATHEXT: '.COM;.EXE;.BAT;.CMD;.VBS',
  ComSpec: COMSPEC,
  VAR: 'expanded',
  PATH_: 'expanded',
  cd: 'expanded',
};
const FILES = new Set(
  [
    `${NODE_DIR}\\node.exe`,
    `${NODE_DIR}\\npx`, // npm's sh script, next to its npx.cmd: never the one to run
    `${NODE_DIR}\\npx.cmd`,
    'C:\\Windows\\system32\\where.exe',
    'C:\\tools\\srv.cmd',
    'C:\\tools\\dup.exe',
    'C:\\tools\\dup.cmd',
    'C:\\tools\\old.bat',
    `${CWD}\\local.cmd`,
    `${CWD}\\bin\\tool.exe`,
    `${CWD}\\node_modules\\.bin\\mcp-server.cmd`,
    'C:\\Users\\me\\AppData\\Roaming\\npm\\global-server.cmd',
  ].map((f) => f.toLowerCase()),
);
/** Windows file names are case-insensitive: the file found is named as PATHEXT spells the extension. */
const isFile = (f: string) => FILES.has(f.toLowerCase());

function plan(command: string, args: string[] = [], env: Record<string, string | undefined> = ENV, probe = isFile): WindowsSpawn {
  return windowsSpawn(command, args, env, CWD, probe);
}

/** The line cmd.exe is given by `cmd /d /v:off /s /c "<line>"` (/s: the outer quotes go). */
function cmdLine(p: WindowsSpawn): string {
  assert.equal(p.windowsVerbatimArguments, true);
  assert.deepEqual(p.args.slice(0, 4), ['/d', '/v:off', '/s', '/c']);
  assert.equal(p.args.length, 5);
  const quoted = p.args[4];
  assert.ok(quoted.startsWith('"') && quoted.endsWith('"'), quoted);
  return quoted.slice(1, -1);
}

// ---- A decoder: what cmd.exe and then the program make of the line. ----

/** cmd.exe's first phase on a command line: `%NAME%` of a defined variable is replaced; an undefined one is kept, and the scan goes on at its second `%`. */
function expandPercent(line: string, env: Record<string, string>): string {
  let out = '';
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    const end = c === '%' ? line.indexOf('%', i + 1) : -1;
    if (end < 0) {
      out += c;
      i++;
      continue;
    }
    const name = line.slice(i + 1, end);
    const key = Object.keys(env).find((k) => k.toUpperCase() === name.toUpperCase());
    if (name && key !== undefined) {
      out += env[key];
      i = end + 1;
    } else {
      out += '%' + name;
      i = end;
    }
  }
  return out;
}

/** cmd.exe's second phase: quotes toggle a quoted run; outside one, `^` makes the next character literal and an operator would end the command. */
function unescapeCmd(line: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted && c === '^') {
      i++;
      if (i < line.length) out += line[i];
      continue;
    } else if (!quoted && '&|<>'.includes(c)) throw new Error(`cmd.exe would take "${c}" at ${i} as an operator: ${line}`);
    out += c;
  }
  return out;
}

/** The Microsoft C runtime's (and CommandLineToArgvW's) reading of a command line's arguments. */
function parseArgv(tail: string): string[] {
  const args: string[] = [];
  let i = 0;
  while (i < tail.length) {
    while (tail[i] === ' ' || tail[i] === '\t') i++;
    if (i >= tail.length) break;
    let arg = '';
    let quoted = false;
    while (i < tail.length && (quoted || (tail[i] !== ' ' && tail[i] !== '\t'))) {
      let backslashes = 0;
      while (tail[i] === '\\') {
        backslashes++;
        i++;
      }
      if (tail[i] === '"') {
        arg += '\\'.repeat(backslashes >> 1);
        if (backslashes % 2) arg += '"';
        else if (quoted && tail[i + 1] === '"') {
          arg += '"';
          i++;
        } else quoted = !quoted;
        i++;
      } else {
        arg += '\\'.repeat(backslashes);
        if (i < tail.length && (quoted || (tail[i] !== ' ' && tail[i] !== '\t'))) arg += tail[i++];
      }
    }
    args.push(arg);
  }
  return args;
}

/**
 * What the program behind the batch file receives: cmd.exe reads the line (percent, then carets
 * and quotes), runs the quoted command with the rest; a shim that forwards `%*` has that rest
 * read once more (carets and quotes; a forwarded `%*` is not expanded again), and node parses it.
 */
function decode(p: WindowsSpawn, env: Record<string, string>, forwardedByShim: boolean): { command: string; args: string[] } {
  const line = unescapeCmd(expandPercent(cmdLine(p), env));
  const m = /^"([^"]*)"(?: (.*))?$/s.exec(line);
  assert.ok(m, `the command is quoted first: ${line}`);
  const tail = m[2] ?? '';
  return { command: m[1], args: parseArgv(forwardedByShim ? unescapeCmd(tail) : tail) };
}

/** Strings that have broken command lines: spaces, quotes, backslashes, and every cmd.exe metacharacter. */
const NASTY = [
  '',
  ' ',
  'plain',
  'C:\\Users\\John Smith\\Documents',
  'C:\\dir\\',
  'C:\\dir with space\\',
  '\\\\server\\share\\',
  'say "hi"',
  '"',
  '""',
  'a\\"b',
  'a\\\\"b',
  'a\\\\\\',
  '\\"',
  '& calc',
  '"& calc & "',
  'a|b',
  '<in>out',
  '^',
  '^^',
  'x^',
  '(a)',
  '%VAR%',
  '%PATH_%',
  '%cd%',
  '%%VAR%%',
  '100%',
  '%VAR',
  '!VAR!',
  'a;b,c=d',
  '\t tab',
  '{"url":"https://x.example/?a=1&b=2","q":"a b"}',
  '--flag="C:\\Program Files\\x\\" & echo pwned',
  'é€ unicode',
  '*?[]`',
];

describe('windowsSpawn: starting a command on Windows without shell: true', () => {
  describe('finding the command like cmd.exe does (PATH, PATHEXT, cwd)', () => {
    it('an .exe on PATH is spawned directly, its arguments left for Node to quote', () => {
      const args = ['C:\\Users\\John Smith', 'a"b', '&'];
      assert.deepEqual(plan('node', args), { file: `${NODE_DIR}\\node.EXE`, args, windowsVerbatimArguments: false });
      assert.equal(plan('where').file, 'C:\\Windows\\system32\\where.EXE');
    });

    it('a .cmd on PATH (npx) goes through the ComSpec as cmd.exe /d /v:off /s /c, by its full path; never npm\'s sh script beside it', () => {
      const p = plan('npx', ['-y', 'server']);
      assert.equal(p.file, COMSPEC);
      assert.ok(cmdLine(p).startsWith(`"${NODE_DIR}\\npx.CMD" `), cmdLine(p));
    });

    it('PATHEXT decides among the extensions, in its order; the working directory comes before PATH', () => {
      assert.equal(plan('dup').file, 'C:\\tools\\dup.EXE');
      assert.equal(plan('dup', [], { ...ENV, PATHEXT: '.CMD;.EXE' }).file, COMSPEC);
      assert.ok(cmdLine(plan('local')).startsWith(`"${CWD}\\local.CMD"`));
      const probed: string[] = [];
      plan('nothing', [], { Path: 'C:\\a;;"C:\\quoted dir"', PATHEXT: '.EXE;;.CMD;' }, (f) => (probed.push(f), false));
      assert.deepEqual(probed, [
        `${CWD}\\nothing.EXE`,
        `${CWD}\\nothing.CMD`,
        'C:\\a\\nothing.EXE',
        'C:\\a\\nothing.CMD',
        'C:\\quoted dir\\nothing.EXE',
        'C:\\quoted dir\\nothing.CMD',
      ]);
    });

    it('without PATHEXT, cmd.exe\'s own list; without ComSpec, cmd.exe', () => {
      const env = { Path: 'C:\\tools' };
      assert.equal(plan('dup', [], env).file, 'C:\\tools\\dup.EXE');
      assert.equal(plan('srv', [], env).file, 'cmd.exe');
    });

    it('variable names are case-insensitive: of PATH and Path, the one Node passes (first in sorted order) is searched', () => {
      assert.equal(plan('srv', [], { path: 'C:\\tools', comspec: 'D:\\cmd.exe' }).file, 'D:\\cmd.exe');
      assert.equal(plan('node', [], { Path: 'C:\\tools', PATH: NODE_DIR }).file, `${NODE_DIR}\\node.EXE`);
      assert.equal(plan('node', [], { PATH: 'C:\\tools', Path: NODE_DIR }).file, 'cmd.exe');
    });

    it('a command with a path is taken relative to cwd, never searched on PATH; one with an extension gets no other', () => {
      assert.equal(plan('bin\\tool').file, `${CWD}\\bin\\tool.EXE`);
      assert.equal(plan('./bin/tool.exe').file, `${CWD}\\bin\\tool.exe`);
      assert.equal(plan('.\\srv').file, COMSPEC); // C:\tools\srv.cmd is not .\srv
      assert.ok(cmdLine(plan('.\\srv')).startsWith('".\\srv"'));
      assert.equal(plan('C:\\tools\\dup').file, 'C:\\tools\\dup.EXE');
      assert.equal(plan('node.exe').file, `${NODE_DIR}\\node.exe`);
      const probed: string[] = [];
      plan('server.js', [], ENV, (f) => (probed.push(f), false));
      assert.ok(probed.every((f) => f.endsWith('\\server.js')), probed.join());
    });

    it('quotes around the command are dropped, as cmd.exe does: a quoted path with spaces finds its file', () => {
      assert.equal(plan(`"${NODE_DIR}\\node.exe"`).file, `${NODE_DIR}\\node.exe`);
    });

    it('a batch file named with trailing dots or spaces (which Windows drops) still goes through cmd.exe', () => {
      assert.equal(plan('C:\\tools\\srv.cmd. ', [], ENV, () => true).file, COMSPEC);
      assert.equal(plan('C:\\tools\\old.BAT').file, COMSPEC);
    });

    it('a command not found goes through cmd.exe as written, quoted, so that cmd.exe reports it (or runs its built-in)', () => {
      const p = plan('no-such-server', ['a b']);
      assert.equal(p.file, COMSPEC);
      assert.equal(cmdLine(p), '"no-such-server" ^"a^ b^"');
    });
  });

  describe('the command line given to cmd.exe', () => {
    const line = (args: string[], command = 'srv') => cmdLine(plan(command, args)).slice('"C:\\tools\\srv.cmd" '.length);

    it('quoteArg follows the C runtime: backslashes doubled only before a quote or the end, quotes escaped', () => {
      assert.equal(quoteArg(''), '""');
      assert.equal(quoteArg('a b'), '"a b"');
      assert.equal(quoteArg('C:\\dir\\'), '"C:\\dir\\\\"');
      assert.equal(quoteArg('C:\\a\\b'), '"C:\\a\\b"');
      assert.equal(quoteArg('say "hi"'), '"say \\"hi\\""');
      assert.equal(quoteArg('a\\"b'), '"a\\\\\\"b"');
      assert.equal(quoteArg('a\\\\"b'), '"a\\\\\\\\\\"b"');
    });

    it('an argument with spaces is quoted and its metacharacters, quotes included, escaped with ^', () => {
      assert.equal(line(['C:\\Users\\John Smith\\Documents']), '^"C:\\Users\\John^ Smith\\Documents^"');
      assert.equal(line(['say "hi"']), '^"say^ \\^"hi\\^"^"');
      assert.equal(line(['C:\\dir\\', 'a\\"b']), '^"C:\\dir\\\\^" ^"a\\\\\\^"b^"');
      assert.equal(line(['&|<>^()%!']), '^"^&^|^<^>^^^(^)^%^!^"');
      assert.equal(line(['%VAR%']), '^"^%VAR^%^"');
      assert.equal(line(['', 'x']), '^"^" ^"x^"');
      assert.equal(line(['*?[]`=']), '^"*?[]`=^"');
    });

    it('the whole line: cmd.exe /d /v:off /s /c with the line in quotes, taken verbatim by Node', () => {
      assert.deepEqual(plan('srv', ['a&b']), {
        file: COMSPEC,
        args: ['/d', '/v:off', '/s', '/c', '""C:\\tools\\srv.CMD" ^"a^&b^""'],
        windowsVerbatimArguments: true,
      });
    });

    it("npm's shims (node_modules\\.bin, the global npm folder, npx.cmd beside node) have their arguments escaped twice", () => {
      const twice = '^^^"a^^^&b^^^"';
      assert.equal(cmdLine(plan('mcp-server', ['a&b'])), `"${CWD}\\node_modules\\.bin\\mcp-server.CMD" ${twice}`);
      assert.equal(cmdLine(plan('C:\\Users\\me\\AppData\\Roaming\\npm\\global-server', ['a&b'])).split(' ')[1], twice);
      assert.equal(cmdLine(plan('npx', ['a&b'])).split('" ')[1], twice);
      assert.equal(line(['a&b']), '^"a^&b^"', 'another batch file, once');
      assert.equal(line(['a&b'], 'old'), '^"a^&b^"');
    });

    it('a line break cannot be escaped for cmd.exe: refused', () => {
      assert.throws(() => plan('srv', ['a\r\nb']), /line break/);
      assert.throws(() => plan('mcp-server', ['a\nb']), /line break/);
      assert.equal(plan('node', ['a\nb']).file, `${NODE_DIR}\\node.EXE`, 'an .exe takes it');
    });
  });

  describe('round trip: cmd.exe and the C runtime read the original arguments back', () => {
    it('the decoder itself sees what shell: true did wrong (a path with a space split, an operator run)', () => {
      assert.deepEqual(parseArgv('-y server C:\\Users\\John Smith'), ['-y', 'server', 'C:\\Users\\John', 'Smith']);
      assert.throws(() => unescapeCmd('"x.cmd" a & calc'), /operator/);
      assert.throws(() => unescapeCmd('"x.cmd" "a\\"&b"'), /operator/);
      assert.equal(expandPercent('%VAR% %nope% 100%', ENV), 'expanded %nope% 100%');
    });

    it('every nasty argument, alone and all together, through a batch file', () => {
      for (const arg of NASTY) assert.deepEqual(decode(plan('srv', [arg]), ENV, false), { command: 'C:\\tools\\srv.CMD', args: [arg] }, JSON.stringify(arg));
      assert.deepEqual(decode(plan('srv', NASTY), ENV, false).args, NASTY);
    });

    it('every nasty argument, alone and all together, through an npm shim that forwards %* to node', () => {
      for (const command of ['mcp-server', 'npx']) {
        for (const arg of NASTY) assert.deepEqual(decode(plan(command, [arg]), ENV, true).args, [arg], `${command} ${JSON.stringify(arg)}`);
        assert.deepEqual(decode(plan(command, NASTY), ENV, true).args, NASTY);
      }
    });

    it('random arguments of backslashes, quotes, spaces and metacharacters', () => {
      const alphabet = ['\\', '"', ' ', '\t', '^', '&', '|', '<', '>', '(', ')', '%', '!', 'V', 'A', 'R', 'a', ';', ',', '=', 'é'];
      let seed = 42;
      const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
      for (let n = 0; n < 500; n++) {
        const args = Array.from({ length: 1 + (next() % 4) }, () => Array.from({ length: next() % 12 }, () => alphabet[next() % alphabet.length]).join(''));
        assert.deepEqual(decode(plan('srv', args), ENV, false).args, args, JSON.stringify(args));
        assert.deepEqual(decode(plan('mcp-server', args), ENV, true).args, args, JSON.stringify(args));
      }
    });
  });
});
