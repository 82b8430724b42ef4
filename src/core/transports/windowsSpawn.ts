import { win32 } from 'node:path';
import { keysOf } from '../util/builtins';

/** What to hand to `spawn` on Windows for a command and its arguments. */
export interface WindowsSpawn {
  file: string;
  args: string[];
  /** True when `args` are already a command line for cmd.exe, which Node must not quote again. */
  windowsVerbatimArguments: boolean;
}

// What cmd.exe gives a meaning to (robvanderwoude.com/escapechars.php), escaped with `^`: its
// operators, quotes, `%` and `!`, and the separators (space, `,`, `;`) of a batch file's `%1`.
// cross-spawn escapes `*?[]` and backquotes too, which cmd.exe leaves to the program.
const META = /[()%!^"<>&|;, ]/g;

/**
 * `arg` quoted so that a program parsing its command line by the Microsoft C runtime's rules (and
 * CommandLineToArgvW) reads it back verbatim: backslashes count only before a quote, so those are
 * doubled, as are the ones before the closing quote, and quotes are escaped.
 */
export const quoteArg = (arg: string): string => `"${arg.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\*)$/, '$1$1')}"`;

/**
 * How to start `command` with `args` on Windows, without `shell: true` (which joins them unquoted
 * into cmd.exe's command line). The command is looked up like cmd.exe does: in `cwd`, then each
 * PATH entry, with each PATHEXT extension unless it has one; a command with a path is taken
 * relative to `cwd` only (`.` is the process's). Pure: `isFile` is the only probe of the disk, so
 * it runs anywhere.
 *
 * - An executable (anything but a batch file) is spawned directly: Node quotes its arguments by
 *   the C runtime's rules.
 * - A `.cmd`/`.bat` (Node refuses to spawn those without a shell since CVE-2024-27980), or a
 *   command not found (so that cmd.exe says so, and runs its built-ins), goes through
 *   `cmd.exe /d /v:off /s /c "..."`: the command quoted, each argument quoted as above and then
 *   every metacharacter `^`-escaped, quotes included, so cmd.exe sees no quoted run and no
 *   operator. npm's shims (`node_modules\.bin\*.cmd`, the global `npm\*.cmd`, and
 *   npm/npx/pnpm/pnpx/yarn/yarnpkg.cmd) pass `%*` to node, and cmd.exe parses that line again:
 *   their arguments are escaped twice. Another batch file that forwards `%*` gets them once, which
 *   holds for any argument without a `"`.
 *
 * `%VAR%` in an argument is neutralised (`^%VAR^%` names a variable `VAR^` that is not defined,
 * and a forwarded `%*` is not expanded again), and so is `!VAR!` (`/v:off`, and `^!`), unless a
 * batch file enables delayed expansion itself. Not neutralised: `%` in the command's own path
 * (it is quoted, and cmd.exe expands inside quotes). Line breaks cannot be escaped for cmd.exe
 * and are refused.
 */
export const windowsSpawn = (
  command: string,
  args: string[],
  env: Record<string, string | undefined>,
  cwd: string,
  isFile: (path: string) => boolean,
): WindowsSpawn => {
  // Windows names are case-insensitive; Node passes the child the first of the spellings in sorted order.
  const get = (name: string) => env[keysOf(env).sort().find((k) => k.toUpperCase() === name)!];
  // cmd.exe ignores quotes in a command's name, and no file name has one.
  const cmd = command.replace(/"/g, '');
  const exts = win32.extname(cmd) ? [''] : (get('PATHEXT') || '.COM;.EXE;.BAT;.CMD').match(/[^;]+/g) || [];
  const dirs = /[\\/]/.test(cmd) ? [cwd] : [cwd, ...(get('PATH') ?? '').split(';')];
  const file = dirs.flatMap((d) => (d ? exts.map((e) => win32.resolve(cwd, d.replace(/"/g, ''), cmd + e)) : [])).find(isFile);
  // Windows drops a name's trailing dots and spaces: `x.cmd.` runs x.cmd.
  if (file && !/\.(bat|cmd)[.\s]*$/i.test(file)) return { file, args, windowsVerbatimArguments: false };
  const twice = file && /\\((\.bin|npm)\\[^\\]+|p?np[mx]|yarn(pkg)?)\.cmd$/i.test(file);
  const escape = (s: string) => s.replace(META, '^$&');
  const line = [`"${file ?? cmd}"`, ...args.map((a) => (twice ? escape : String)(escape(quoteArg(a))))].join(' ');
  if (/[\r\n]/.test(line)) throw new Error('cmd.exe cannot pass on an argument with a line break');
  return { file: get('COMSPEC') || 'cmd.exe', args: ['/d', '/v:off', '/s', '/c', `"${line}"`], windowsVerbatimArguments: true };
};
