// Bundles the extension into one file: dist/extension.js (after vscode-extension-samples/esbuild-sample).
const path = require('path');
const esbuild = require('esbuild');

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/**
 * Prints errors in the shape of the `$esbuild-watch` problem matcher and, `watching` (--watch),
 * when each build starts and ends, which that matcher waits for; a one-off build has nothing
 * watching it, so it says nothing of the kind.
 */
const problemMatcher = (watching) => ({
  name: 'problem-matcher',
  setup(build) {
    if (watching) build.onStart(() => console.log('[watch] build started'));
    build.onEnd((result) => {
      for (const { text, location } of result.errors) {
        console.error(`✘ [ERROR] ${text}`);
        if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
      }
      if (watching) console.log('[watch] build finished');
    });
  },
});

/**
 * Tests in ws's code for what our transport never asks for: WS_TRANSPORT, the one file that
 * imports ws, gives it the options WS_OPTIONS lists and no other (the build fails otherwise):
 * no deflate, no redirects followed, and ws's defaults for the rest. Each test is replaced by the
 * constant it always is there, so the minifier drops the code it guards (2.7 KB): with no deflate
 * offered, a server's extension header is refused and a compressed frame is an error, so nothing
 * is ever compressed or decompressed; with no redirect followed, a 3xx answer is an
 * 'unexpected-response', as any other answer is. Each test must be found exactly once. The
 * WebSocket tests give such answers to the transport bundled and unbundled, and expect the same.
 */
const WS_TRANSPORT = path.join(__dirname, 'src/core/transports/websocket.ts');
/** The options WS_TRANSPORT gives `new WebSocket()`, those that WS_FIXED reads with their value. */
const WS_OPTIONS = ['headers', 'maxPayload', 'handshakeTimeout', 'followRedirects: false', 'perMessageDeflate: false'];
/** ws's eight blocks that define its readyState constants (see WS_FIXED), as its websocket.js has them. */
const WS_READY_STATES = ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']
  .flatMap((state) =>
    ['WebSocket', 'WebSocket.prototype'].map(
      (owner) => `/**\n * @constant {Number} ${state}\n * @memberof ${owner}\n */\nObject.defineProperty(${owner}, '${state}', {\n  enumerable: true,\n  value: readyStates.indexOf('${state}')\n});\n`,
    ),
  )
  .join('\n');
const WS_FIXED = [
  ['websocket.js', 'if (opts.perMessageDeflate) {', 'if (false) {'],
  ['websocket.js', 'if (!perMessageDeflate) {', 'if (true) {'],
  ['websocket.js', 'if (opts.followRedirects) {', 'if (false) {'],
  ['websocket.js', 'location &&\n      opts.followRedirects &&', 'false &&'],
  // So an invalid URL is never one redirected to.
  ['websocket.js', 'if (websocket._redirects === 0) {\n      throw err;', 'if (true) {\n      throw err;'],
  // Options it does not pass: ws's own protocol version (13, which it supports), no Origin header, no finishRequest.
  ['websocket.js', 'if (!protocolVersions.includes(opts.protocolVersion)) {', 'if (false) {'],
  ['websocket.js', 'if (opts.origin) {', 'if (false) {'],
  ['websocket.js', 'if (opts.finishRequest) {', 'if (false) {'],
  // Only ws's server makes a WebSocket of no address (see WS_ALWAYS).
  ['websocket.js', 'if (address !== null) {', 'if (true) {'],
  ['receiver.js', 'if (this._compressed) {', 'if (false) {'],
  // The method whose one call that test guarded.
  ['receiver.js', /^ {2}decompress\(data, cb\) \{$[^]*?^ {2}\}$/m, ''],
  ['sender.js', 'dispatch(data, compress, options, cb) {\n    if (!compress) {', 'dispatch(data, compress, options, cb) {\n    if (true) {'],
  // The DOM-style API (`ws.onmessage = …`, `addEventListener`), which WS_TRANSPORT never uses (wsDomStyle): it listens with on().
  ['websocket.js', "const {\n  EventTarget: { addEventListener, removeEventListener }\n} = require('./event-target');\n", ''],
  ['websocket.js', /^ {2}\/\* istanbul ignore next \*\/\n {2}get onclose\(\) \{$[^]*?^ {2}get onmessage\(\) \{\n {4}return null;\n {2}\}$/m, ''],
  ['websocket.js', /^\['open', 'error', 'close', 'message'\]\.forEach\(\(method\) => \{$[^]*?^\}\);$/m, ''],
  ['websocket.js', 'WebSocket.prototype.addEventListener = addEventListener;\nWebSocket.prototype.removeEventListener = removeEventListener;', ''],
  // The method that reads a Blob to send (see WS_ALWAYS).
  ['sender.js', /^ {2}getBlobData\(blob, compress, options, cb\) \{$[^]*?^ {2}\}$/m, ''],
  // binaryType, which WS_TRANSPORT never sets (wsDomStyle): a message is always a Buffer, ws's default.
  ['websocket.js', '\n  BINARY_TYPES,', ''],
  ['websocket.js', '    this._binaryType = BINARY_TYPES[0];\n', ''],
  ['websocket.js', /^ {2}\/\*\*\n {3}\* For historical reasons, the custom "nodebuffer" type[^]*?^ {2}set binaryType\(type\) \{$[^]*?^ {2}\}$/m, ''],
  ['websocket.js', '      binaryType: this.binaryType,\n', ''],
  ['websocket.js', "\n  'binaryType',", ''],
  ['receiver.js', '\n  BINARY_TYPES,', ''],
  ['receiver.js', '    this._binaryType = options.binaryType || BINARY_TYPES[0];\n', ''],
  ['receiver.js', /^ {6}if \(this\._binaryType === 'nodebuffer'\) \{\n( {8}data = concat\(fragments, messageLength\);)\n[^]*?^ {6}\}$/m, '$1'],
  ['receiver.js', 'const { concat, toArrayBuffer, unmask }', 'const { concat, unmask }'],
  ['buffer-util.js', /^function toArrayBuffer\(buf\) \{$[^]*?^\}$/m, ''],
  ['buffer-util.js', '\n  toArrayBuffer,', ''],
  ['constants.js', "const BINARY_TYPES = ['nodebuffer', 'arraybuffer', 'fragments'];\n", ''],
  ['constants.js', "if (hasBlob) BINARY_TYPES.push('blob');\n", ''],
  ['constants.js', '\n  BINARY_TYPES,', ''],
  // The four readyState constants, defined on WebSocket and on its prototype in eight blocks: one
  // loop defines the same properties, in the same order.
  ['websocket.js', WS_READY_STATES, 'readyStates.forEach((state, value) => {\n  for (const target of [WebSocket, WebSocket.prototype]) Object.defineProperty(target, state, { enumerable: true, value });\n});\n'],
];

/** Reads in ws's code, in every file, of what is always the same in our bundle, and its value. */
const WS_ALWAYS = [
  // With no deflate offered, no extension is ever agreed: each look-up of it finds nothing.
  ['this._extensions[PerMessageDeflate.extensionName]', 'undefined'],
  // Every WebSocket, and its receiver, is a client's: ws's server is not bundled (see `alias`).
  [/this\._isServer(?! = )/g, 'false'],
  // What WS_TRANSPORT hands ws to send is a string, or nothing (WS_SENDS): never a Blob.
  [/\bisBlob\(data\)/g, 'false'],
];

/**
 * WS_TRANSPORT's calls that hand ws something to send, each as "method(argument)": the argument
 * is a number, or a variable the file declares as a string (checked), or there is none. ws's
 * Blob path is dropped on that (WS_ALWAYS); the build fails when the calls differ.
 */
const WS_SENDS = ['close(1000)', 'ping()', 'send(text)'];

/** `file`'s calls of ws's close, ping, pong and send, as WS_SENDS lists them. */
const wsSends = (file, text) => {
  const ts = require('typescript');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const strings = new Set();
  const calls = [];
  const visit = (node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.type?.kind === ts.SyntaxKind.StringKeyword) strings.add(node.name.text);
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.expression.getText(source) === 'ws' && /^(close|ping|pong|send)$/.test(node.expression.name.text)) {
      const [first] = node.arguments;
      calls.push([node.expression.name.text, first]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  const sure = (first) => !first || ts.isNumericLiteral(first) || (ts.isIdentifier(first) && strings.has(first.text));
  return calls
    .map(([name, first]) => `${name}(${first?.getText(source) ?? ''}${sure(first) ? '' : ', not known to be a string'})`)
    .sort()
    .join(', ');
};

/**
 * Where `file` reads or writes a WebSocket's DOM-style API or binaryType, which WS_FIXED drops:
 * "file:line name" each. Any object's but the transport's own (`this.onmessage`) counts, however it is reached
 * (`(ws as any).onmessage`, `socket['onclose']`, a variable that holds the WebSocket), but an
 * AbortSignal's addEventListener (an object named `…signal`).
 */
const wsDomStyle = (file, text) => {
  const ts = require('typescript');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const uses = [];
  const visit = (node) => {
    const access = ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node);
    const name = ts.isPropertyAccessExpression(node) ? node.name.text : access && ts.isStringLiteralLike(node.argumentExpression) ? node.argumentExpression.text : '';
    let of = access && node.expression;
    while (of && (ts.isParenthesizedExpression(of) || ts.isAsExpression(of) || ts.isNonNullExpression(of) || ts.isTypeAssertionExpression(of) || ts.isSatisfiesExpression(of))) of = of.expression;
    const dom = /^(on(open|error|close|message)|binaryType)$/.test(name) || (/^(add|remove)EventListener$/.test(name) && !/signal$/i.test(of.getText(source)));
    if (dom && of.kind !== ts.SyntaxKind.ThisKeyword) uses.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} ${name}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return uses;
};

/** The options of each `new WebSocket(url, protocols, options)` in `file`, as WS_OPTIONS lists them. */
const wsOptions = (file, text) => {
  const ts = require('typescript');
  const calls = [];
  const visit = (node) => {
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'WebSocket') {
      const options = node.arguments?.[2];
      calls.push(
        options && ts.isObjectLiteralExpression(options)
          ? options.properties
              .map((p) => (p.initializer?.kind === ts.SyntaxKind.FalseKeyword ? `${p.name.getText()}: false` : (p.name?.getText() ?? p.getText())))
              .sort()
              .join(', ')
          : `${options?.getText()}`,
      );
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
  return calls.join(' } and { ');
};

/**
 * Our WebSocket transport turns compression off (`perMessageDeflate: false`), so ws's deflate
 * extension and its header parser are never called: ship stubs instead of them. It listens with
 * `on()`, never through the DOM-style `addEventListener`/`onmessage` (wsDomStyle checks), so ws's
 * event-target.js is not bundled at all (WS_FIXED drops its one import). 10 KB of code in all.
 * The WebSocket tests run against the bundle's behaviour through the same option.
 */
const wsWithoutDeflate = {
  name: 'ws-without-deflate',
  setup(build) {
    build.onStart(async () => {
      const transport = await require('fs').promises.readFile(WS_TRANSPORT, 'utf8');
      const given = wsOptions(WS_TRANSPORT, transport);
      if (given !== [...WS_OPTIONS].sort().join(', ')) {
        return { errors: [{ text: `${WS_TRANSPORT} gives ws the options { ${given} }, where esbuild.js's WS_FIXED holds for { ${WS_OPTIONS.join(', ')} } alone: update them` }] };
      }
      const [domStyle] = wsDomStyle(WS_TRANSPORT, transport);
      if (domStyle) return { errors: [{ text: `${domStyle}: a WebSocket's DOM-style API or binaryType, which esbuild.js's WS_FIXED drops: listen with on(), and take a message as the Buffer ws gives` }] };
      const sends = wsSends(WS_TRANSPORT, transport);
      if (sends === WS_SENDS.join(', ')) return undefined;
      return { errors: [{ text: `${WS_TRANSPORT} calls ws's ${sends}, where esbuild.js's WS_ALWAYS holds for ${WS_SENDS.join(', ')} alone (never a Blob): update them` }] };
    });
    build.onResolve({ filter: /^ws$/ }, (args) => {
      if (args.importer !== WS_TRANSPORT) return { errors: [{ text: `${args.importer} imports ws, which esbuild.js's WS_FIXED bundles for ${WS_TRANSPORT} alone` }] };
      return undefined;
    });
    build.onResolve({ filter: /^\.\/(permessage-deflate|extension)$/ }, (args) =>
      /[\\/]ws[\\/]lib$/.test(args.resolveDir) ? { path: args.path, namespace: 'ws-stub' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'ws-stub' }, (args) => ({
      contents: args.path.endsWith('permessage-deflate')
        ? "module.exports = class PerMessageDeflate { static get extensionName() { return 'permessage-deflate'; } };"
        : "module.exports = { format() { throw new Error('ws extensions are disabled'); }, parse() { throw new Error('ws extensions are disabled'); } };",
      loader: 'js',
    }));
    build.onLoad({ filter: /[\\/]ws[\\/]lib[\\/][\w-]+\.js$/ }, async (args) => {
      // The bundle is strict as a whole (its first line, from tsconfig's strict): each ws file's own 'use strict' is one more.
      let contents = (await require('fs').promises.readFile(args.path, 'utf8')).replace(/^'use strict';$/m, '');
      // validation.js's 128-entry tokenChars table is read by the header parsers alone: the
      // extension one (stubbed above) and the server's subprotocol one (not bundled). 0.3 KB.
      if (args.path.endsWith(`${path.sep}validation.js`)) {
        const without = contents.replace(/^\/\/\n\/\/ Allowed token characters:[^]*?^const tokenChars = \[[\d,\s/-]*\];$/m, '').replace(/,\s*tokenChars\s*\}/, '\n}');
        if (/tokenChars/.test(without)) throw new Error(`${args.path}: its tokenChars table was not found as expected: update esbuild.js's ws-without-deflate`);
        contents = without;
      } else if (/tokenChars/.test(contents)) {
        throw new Error(`${args.path} reads ws's tokenChars, which esbuild.js's ws-without-deflate drops`);
      }
      for (const [read, value] of WS_ALWAYS) contents = contents.replaceAll(read, value);
      for (const [file, test, constant] of WS_FIXED) {
        if (!args.path.endsWith(`${path.sep}${file}`)) continue;
        const at = typeof test === 'string' ? contents.split(test).length - 1 : (contents.match(new RegExp(test, 'gm')) ?? []).length;
        if (at !== 1) throw new Error(`${args.path}: "${test}" found ${at} times, not once: update esbuild.js's WS_FIXED`);
        contents = contents.replace(test, constant);
      }
      // binaryType is gone whole (WS_FIXED), or a file reads what is no longer there (comments aside).
      if (/binaryType|BINARY_TYPES|toArrayBuffer/i.test(contents.replace(/^\s*(\*|\/\/).*$/gm, ''))) throw new Error(`${args.path} still reads ws's binaryType, which esbuild.js's WS_FIXED drops: update WS_FIXED`);
      return { contents, loader: 'js' };
    });
  },
};

/**
 * Tests in zod's code for what our schemas never use, each replaced by the constant it always is
 * in our bundle, so the minifier drops the code it guards (3.5 KB), as WS_FIXED does for ws. src/
 * never configures zod (`z.config`: no memoizer is installed, for cycles we never build); every
 * record it makes is `z.record(z.string(), …)`: its keys are no enumerable set (`values`), never
 * numbers, never loose (`z.looseRecord`); it never caps a size (`z.maxLength`) nor coerces
 * (`z.coerce`); it parses, never encodes (zod's backward direction), and never through Standard
 * Schema (`schema["~standard"]`); and it parses synchronously (`safeParse`) with schemas that
 * answer at once (no z.promise, z.codec or z.lazy; a check or transform that returns a promise
 * still throws zod's $ZodAsyncError), so no container ever waits for a child's promise. The build
 * fails unless src/ keeps to that (ZOD_PREMISES) and each test is found as often as listed.
 * zod.test.ts validates values with zod bundled so and with zod itself, and expects the same.
 */
const ZOD_SCHEMAS = path.join(__dirname, 'node_modules/zod/v4/core/schemas.js');
const ZOD_FIXED = [
  ['core.globalConfig.memoizer', 'undefined', 8],
  ['if (values && !def.partial) {', 'if (false) {', 1],
  ['const checkNumericKey = typeof key === "string" && regexes.number.test(key) && keyResult.issues.length;', 'const checkNumericKey = false;', 1],
  ['if (def.mode === "loose") {', 'if (false) {', 2],
  ['else if (values) {', 'else if (false) {', 1],
  // Coercion (`z.coerce.string()`...): never.
  ['if (def.coerce)', 'if (false)', 5],
  // An array's leading size cap (`z.maxLength`, `z.length`): src/ sets none, only minimums.
  ['    capSize(inst, arraySize);\n', '', 1],
  // Encoding (zod's backward direction, and the check-less first pass it makes): never.
  ['ctx.direction === "backward"', 'false', 9],
  ['ctx?.direction !== "backward"', 'true', 1],
  ['ctx.direction !== "backward"', 'true', 1],
  ['if (ctx.skipChecks) {', 'if (false) {', 1],
  ['!ctx?.skipChecks', 'true', 1],
  // A child's answer that is a promise: in a sync parse, never (an async check still throws: `_`).
  [/\b(result|r|keyResult|left|right|canary|checkResult|retryResult|valueResult) instanceof Promise\b/g, 'false', 32],
  // What only the first pass of encoding calls.
  [/^ {8}const handleCanaryResult = \(canary, payload, ctx\) => \{$[^]*?^ {8}\};\n/gm, '', 1],
  // Standard Schema's `schema["~standard"].validate()`, which src/ never calls (nor anything it gives a schema to).
  [/^\}, \{\n {4}\/\/ Wrappers extend this[^]*?^\}\);$/gm, '});', 1],
];
/**
 * zod/mini's schema methods that src/ never calls, which would bring their parsers along: the
 * async ones (see ZOD_PREMISES), `parse` (src/ calls `safeParse`, which answers where `parse`
 * throws), those that only hand the schema back or to a registry (1 KB), and `with`, check()'s
 * alias. Each must be found once.
 */
const ZOD_MINI_SCHEMAS = path.join(__dirname, 'node_modules/zod/v4/mini/schemas.js');
const ZOD_MINI_FIXED = [
  [/^ {4}parse\(data, params\) \{$[^]*?^ {4}\},\n/gm, '', 1],
  [/^ {4}parseAsync\(data, params\) \{$[^]*?^ {4}\},\n/gm, '', 1],
  [/^ {4}safeParseAsync\(data, params\) \{$[^]*?^ {4}\},\n/gm, '', 1],
  [/^ {4}brand\(\) \{$[^]*?^ {4}\},\n/gm, '', 1],
  [/^ {4}register\(reg, meta\) \{$[^]*?^ {4}\},\n/gm, '', 1],
  [/^ {4}apply\(fn, \.\.\.args\) \{$[^]*?^ {4}\},\n/gm, '', 1],
  // `with`, check()'s alias (a getter and a setter: 70 bytes).
  [/^ {4}\/\/ `with` is an alias for `check`[^\n]*\n {4}get with\(\) \{\n[^]*?^ {4}set with\(value\) \{\n[^]*?^ {4}\},\n/gm, '', 1],
  // Its 65 schema classes that only run their core class's initializer, then their parent's: each
  // made by one helper (0.2 KB). The parent is read when the class is made, not when one is built,
  // so it must be declared above: bundled, zod's consts are vars, undefined until then, and only
  // building a schema of that class would throw. Checked here for each.
  [
    'export const ZodMiniType = ',
    'const miniSchema = (name, base, parent) => core.$constructor(name, (inst, def) => {\n    base.init(inst, def);\n    parent.init(inst, def);\n});\nexport const ZodMiniType = ',
    1,
  ],
  [
    /core\.\$constructor\("(ZodMini\w+)", \(inst, def\) => \{\n {4}(core\.\$Zod\w+)\.init\(inst, def\);\n {4}(ZodMini\w+)\.init\(inst, def\);\n\}\)/g,
    (_, name, base, parent, at, text) => {
      if (!text.slice(0, at).includes(`export const ${parent} = `)) throw new Error(`zod/mini's ${name} is declared above its parent ${parent}: update esbuild.js's ZOD_MINI_FIXED`);
      return `miniSchema("${name}", ${base}, ${parent})`;
    },
    65,
  ],
];
/**
 * zod's $ZodError class, built at load time though nothing calls it (zod throws and answers with
 * $ZodRealError, its Error subclass): marked pure, it is left out where unused, kept where used.
 * Each test must be found as often as listed.
 */
const ZOD_ERRORS = path.join(__dirname, 'node_modules/zod/v4/core/errors.js');
const ZOD_ERRORS_FIXED = [
  // Last, so that the minifier joins its neighbours' declarations into one: dropped in between, it would part them.
  [/^(export const \$ZodError = )(\$constructor\("\$ZodError", initializer\);)\n(export const \$ZodRealError = [^;]*;)$/gm, '$3\n$1/* @__PURE__ */ $2', 1],
];
/** What src/ must never do for ZOD_FIXED to hold, and why. */
const ZOD_PREMISES = [
  [/\bz\.config\b|\bmemoizer\b|from 'zod'/, "configures zod (or imports zod, which does), where esbuild.js's ZOD_FIXED holds for zod/mini's defaults"],
  [/\bz\.(looseRecord|partialRecord)\b|\bZodMiniRecord\b|\bz\.record\((?!z\.string\(\), )/, "makes a record whose keys are not z.string(), where esbuild.js's ZOD_FIXED holds for those alone"],
  [/\b(safeParseAsync|parseAsync|spa|decodeAsync|encodeAsync)\b|\bz\.(promise|codec|lazy)\b/, "parses asynchronously, or makes a schema that may, where esbuild.js's ZOD_FIXED holds for sync parses alone"],
  [/\bz\.(maxLength|length|maxSize|size)\b/, "caps a size, where esbuild.js's ZOD_FIXED holds for minimums alone"],
  [/\bz\.coerce\b/, "coerces with zod, which esbuild.js's ZOD_FIXED drops"],
  [/~standard/, "reads a schema's Standard Schema surface, which esbuild.js's ZOD_FIXED drops"],
  // Called, read by name (`S['brand']`) or taken out (`const { brand } = S`); Reflect's apply() is no schema's (and what the refusal says to call).
  [
    /(?<!\bReflect\s*)\.\s*(brand|register|apply)\b|\[\s*(['"`])(brand|register|apply)\2\s*\]|\{[^{}]*\b(brand|register|apply)\b[^{}]*\}\s*=(?![=>])(?!\s*Reflect\b(?!\s*[.[]))/,
    "calls a schema's brand(), register() or apply() (or a function's apply()), which esbuild.js's ZOD_MINI_FIXED drops: for brand(), brand the type (`z.infer<typeof S> & { __brand: 'X' }`); for register(r, meta), call r.add(S, meta); for apply(f), call f(S) (a function's: Reflect.apply())",
  ],
  // The word in a sentence ("e.g. with a check") is no call: a word follows it.
  [
    /\.\s*with\b(?!\s+[\w$])|\[\s*(['"`])with\1\s*\]|\{[^{}]*\bwith\s*:[^{}]*\}\s*=(?![=>])/,
    "calls a schema's with(), which esbuild.js's ZOD_MINI_FIXED drops: call check(), which it is an alias of (for an array's with(), which this cannot tell apart, copy the array and set the item)",
  ],
  // zod/mini's own `z.parse(S, x)` needs no method, nor do JSON's, Date's and URL's parse; nor does one taken out of `z` itself or the editor's API (`vscode.Uri`).
  [
    /(?<!\b(JSON|Date|Uri|URL|z)\s*)\.\s*parse\b|\[\s*(['"`])parse\2\s*\]|\{[^{}]*\bparse\b[^{}]*\}\s*=(?![=>])(?!\s*((JSON|Date|Uri|URL)\b|z\b(?!\s*\.)|vscode\.))/,
    "calls a schema's parse(), which esbuild.js's ZOD_MINI_FIXED drops: call safeParse() (another object's parse(), such as path's: let its name through in esbuild.js's ZOD_PREMISES)",
  ],
  [/\bz\.(safe)?([Ee]ncode|[Dd]ecode)|import\s*(type\s*)?\{[^}]*\}\s*from\s*'zod/, "encodes with zod (or imports its functions by name, which could), where esbuild.js's ZOD_FIXED holds for parses alone"],
];
/**
 * What the build says when `file` breaks one of ZOD_PREMISES, or undefined. A property read by a
 * name built from pieces (`S['par' + 'se']`, a template, a conditional, a const of the file that
 * holds one) is worked out and checked as if written out; one built from what the build cannot
 * work out is refused. A name held in a variable or parameter, or given by a call, is not checked
 * (that would take the type checker: 5 s more for each build).
 */
const zodMisuse = (file, text) => {
  const premise = (t) => ZOD_PREMISES.find(([p]) => p.test(t))?.[1];
  const what = premise(text);
  if (what) return `${file} ${what}`;
  // Only a file with a read by a name that is no literal alone (in parentheses, asserted, `as` one) is parsed.
  if (!/\[[^\]]*(\+|\$\{|\?|[\w$)!]\s*\]|\s(as|satisfies)\s)/.test(text)) return undefined;
  const ts = require('typescript');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const consts = new Map();
  const collect = (node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && ts.getCombinedNodeFlags(node) & ts.NodeFlags.Const) {
      consts.set(node.name.text, [...(consts.get(node.name.text) ?? []), node.initializer]);
    }
    ts.forEachChild(node, collect);
  };
  collect(source);
  const inner = (e) => (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) || ts.isSatisfiesExpression(e) || ts.isTypeAssertionExpression(e) ? inner(e.expression) : e);
  const plus = (e) => ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken;
  const seen = new Set();
  // Each of the consts a name may be (the file may declare it more than once), worked out once.
  const each = (id, f) => {
    if (seen.has(id.text)) return undefined;
    seen.add(id.text);
    try {
      return consts.get(id.text)?.map(f);
    } finally {
      seen.delete(id.text);
    }
  };
  // The values `e` may have, UNKNOWN among them where the build cannot tell one: those it can are
  // checked all the same (a const whose name another const of the file has, of another value).
  const UNKNOWN = Symbol('unknown');
  const values = (node) => {
    const e = inner(node);
    const sums = (a, b) => a.flatMap((x) => b.map((y) => (x === UNKNOWN || y === UNKNOWN ? UNKNOWN : x + y)));
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return [e.text];
    if (ts.isNumericLiteral(e)) return [Number(e.text)];
    if (ts.isConditionalExpression(e)) return [...values(e.whenTrue), ...values(e.whenFalse)];
    if (plus(e)) return sums(values(e.left), values(e.right));
    if (ts.isTemplateExpression(e)) return e.templateSpans.reduce((at, span) => sums(sums(at, values(span.expression)), [span.literal.text]), [e.head.text]);
    return (ts.isIdentifier(e) && each(e, values)?.flat()) || [UNKNOWN];
  };
  // Whether `e` builds a string (a template, or a sum with a string in it).
  const builds = (node) => {
    const e = inner(node);
    if (ts.isTemplateExpression(e)) return true;
    if (ts.isConditionalExpression(e)) return builds(e.whenTrue) || builds(e.whenFalse);
    if (plus(e)) return [e.left, e.right].some((s) => builds(s) || ts.isStringLiteral(inner(s)) || ts.isNoSubstitutionTemplateLiteral(inner(s)));
    return ts.isIdentifier(e) && !!each(e, builds)?.some(Boolean);
  };
  const names = [];
  const visit = (node) => {
    const p = node.parent;
    // A property read, or taken out by a pattern (`const { [k]: v } = S`, `({ [k]: v } = S)`).
    if (p && ((ts.isElementAccessExpression(p) && p.argumentExpression === node) || (ts.isComputedPropertyName(p) && (ts.isBindingElement(p.parent) || (ts.isPropertyAssignment(p.parent) && ts.isBinaryExpression(inner(p.parent.parent).parent) && inner(p.parent.parent.parent.left) === p.parent.parent))))) {
      names.push(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  for (const name of names) {
    const at = `${file}:${source.getLineAndCharacterOfPosition(name.getStart(source)).line + 1} reads ${ts.isElementAccessExpression(name.parent) ? name.parent.getText(source) : `{ ${name.parent.parent.getText(source)} }`}`;
    const may = values(name);
    const dropped = may.map((v) => v !== UNKNOWN && [v, premise(`S[${JSON.stringify(String(v))}]`)]).find((v) => v && v[1]);
    if (dropped) return `${at}, that is ${JSON.stringify(String(dropped[0])).replace(/^"|"$/g, "'")}, so it ${dropped[1]}`;
    if (may.includes(UNKNOWN) && builds(name)) return `${at} by a name built at run time, which esbuild.js cannot check against the schema methods ZOD_MINI_FIXED drops: write the name out (or build it from strings and consts of this file)`;
  }
  return undefined;
};
const zodFixed = {
  name: 'zod-fixed',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!args.path.startsWith(SRC)) return undefined;
      const misuse = zodMisuse(args.path, await require('fs').promises.readFile(args.path, 'utf8'));
      if (misuse) throw new Error(misuse);
      return undefined;
    });
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/](core|mini)[\\/](schemas|errors)\.js$/ }, async (args) => {
      const lists = { ZOD_FIXED: [ZOD_SCHEMAS, ZOD_FIXED], ZOD_MINI_FIXED: [ZOD_MINI_SCHEMAS, ZOD_MINI_FIXED], ZOD_ERRORS_FIXED: [ZOD_ERRORS, ZOD_ERRORS_FIXED] };
      const [name, [, fixed]] = Object.entries(lists).find(([, [file]]) => file === path.resolve(args.path)) ?? [undefined, []];
      if (!fixed) return undefined;
      let contents = await require('fs').promises.readFile(args.path, 'utf8');
      for (const [test, constant, times] of fixed) {
        const at = typeof test === 'string' ? contents.split(test).length - 1 : (contents.match(test) ?? []).length;
        if (at !== times) throw new Error(`${args.path}: "${test}" found ${at} times, not ${times}: update esbuild.js's ${name}`);
        contents = contents.replaceAll(test, constant);
      }
      return { contents, loader: 'js' };
    });
  },
};

/**
 * The editor's API is one module in the bundle that re-exports `vscode`: esbuild otherwise gives
 * each of the 19 files that import it a copy of the import (its own `require` and namespace
 * object), where with this one namespace serves them all (0.6 KB). It also binds the namespaces
 * the code uses most (about 280 calls), and the classes and enums it uses three times or more, to
 * variables of their own, which the minifier shortens: `vscode.l10n.t(...)` ships as `g.t(...)`,
 * not `d.l10n.t(...)` (1.8 KB). The editor gives an extension its API object once, and these are
 * fixed on it (the namespaces' members, such as `workspace.workspaceFolders`, are still read at
 * each use). What the list leaves out is read from the namespace as before.
 */
const VSCODE_MODULE = [
  "import * as vscode from 'vscode';",
  "export * from 'vscode';",
  'export const { commands, l10n, window, workspace } = vscode;',
  'export const { EventEmitter, LanguageModelTextPart, MarkdownString, ThemeColor, ThemeIcon, TreeItem, TreeItemCollapsibleState, Uri } = vscode;',
].join('\n');
const vscodeOnce = {
  name: 'vscode-once',
  setup(build) {
    build.onResolve({ filter: /^vscode$/ }, (args) =>
      args.namespace === 'vscode-once' ? { path: 'vscode', external: true } : { path: 'vscode', namespace: 'vscode-once' },
    );
    build.onLoad({ filter: /.*/, namespace: 'vscode-once' }, () => ({ contents: VSCODE_MODULE, loader: 'js' }));
  },
};

/**
 * Node's modules that several files import, likewise one module each in the bundle: esbuild
 * otherwise gives each importing file its own `require` of it (0.2 KB). Node gives the same
 * module object at every `require`, so each file sees what it saw before.
 */
const nodeOnce = {
  name: 'node-once',
  setup(build) {
    build.onResolve({ filter: /^node:(fs|path|stream)$/ }, (args) =>
      args.namespace === 'node-once' ? { path: args.path, external: true } : { path: args.path, namespace: 'node-once' },
    );
    build.onLoad({ filter: /.*/, namespace: 'node-once' }, (args) => ({ contents: `export * from '${args.path}';`, loader: 'js' }));
  },
};

/**
 * ws keeps the state of its WebSocket, Receiver and Sender in `_`-named fields (`_bufferedBytes`,
 * `_payloadLength`...), hundreds of uses that only ws reads (through `websocket._x`, `this._x`,
 * never a string; the ws-without-deflate plugin checks that): the bundle gives them short names
 * (3.4 KB). Left out: what Node reads or owns (`_write`, `_readableState`, `_writableState`), and
 * `_url`, which zod names too (see MANGLED).
 */
const WS_FIELDS = [
  '_allowSynchronousEvents', '_autoPong', '_autoPongComplete', '_bufferedAmount', '_bufferedBytes', '_buffers',
  '_closeCode', '_closeFrameReceived', '_closeFrameSent', '_closeMessage', '_closeTimeout', '_closeTimer', '_compress', '_compressed',
  '_errorEmitted', '_errored', '_extensions', '_fin', '_firstFragment', '_fragmented', '_fragments', '_generateMask', '_isServer',
  '_loop', '_mask', '_maskBuffer', '_masked', '_maxBufferedChunks', '_maxFragments', '_maxPayload', '_maxPendingAutoPongs',
  '_messageLength', '_numFragments', '_opcode', '_originalHostOrSocketPath', '_originalIpc', '_originalSecure', '_paused',
  '_payloadLength', '_pendingAutoPongs', '_protocol', '_queue', '_readyState', '_receiver', '_redirects', '_req', '_sender',
  '_skipUTF8Validation', '_socket', '_state', '_threshold', '_totalPayloadLength',
];
const wsFields = WS_FIELDS.join('|');

/**
 * Methods of our own objects (src/) that the bundle calls by short names, as it does ws's fields:
 * `_register` (DisposableBase's, called 40 times: 0.3 KB) and the longer names called across
 * files (1.3 KB). Left out: those a type names in quotes (`Pick<TaskEngine, 'callTool'>`). A
 * function never reaches JSON, storage or a server, so the names cannot be in what is kept or
 * sent; the build fails unless each is, in src/, only declared as a method (or a property whose
 * value is a function) and called (`ownMethodMisuses`), and named nowhere outside src/ that could
 * call it by name: a bundled package (MANGLED), the editor's API, Node's or the language's
 * typings, the API we export, our integration and e2e tests or fixture extensions (`outsideCallers`).
 */
const OWN_METHODS = [
  '_register', 'resolveServer', 'shownHosted', 'setProtocolVersion', 'notifyRootsChanged', 'liveTasksChanged', 'pendingCalls',
  'onProgress', 'openServerStream', 'clearEndedHosted', 'saveSessions', 'reopenDialog', 'keepSessionAtShutdown',
  'effectivePollInterval', 'registerForgetCommand', 'endedHosted', 'reloadConfiguration', 'followRelatedTasks',
  'clientCapabilities', 'mcpJsonUri', 'findTask', 'startBlocker', 'serverFingerprint', 'listTools', 'addSavedSessions',
  'whileBusy', 'isAnswering', 'resultInFlight', 'alwaysAllowed', 'followsByList', 'flushSync',
  'removedTasks', 'holdsSession', 'refreshTasks', 'leavingWith', 'savedInput', 'revokeAll',
  'liveTasks', 'onSession', 'liveCount', 'forgetAll', 'fromJSON', 'cannotStart', 'liveCalls', 'refreshList', 'retake',
];
const ownMethods = OWN_METHODS.join('|');

/**
 * Fields of our own objects that never leave the process, which the bundle also calls by short
 * names (0.6 KB), each with the one class or interface that declares it, and that type's file: the
 * task engine's record of a task beside its snapshot (`Rec`) and of how it follows a server
 * (`ServerFollow`), the server manager's state of a server (`Entry`), and a few more. Those files
 * export none of these types and never write one out (stored, sent, logged as JSON, handed to the
 * editor): an object of it is made and read there alone. A field of what is kept or sent (a
 * snapshot, a saved session, a message) must never be here. The build fails unless each is named,
 * in src/, in its owner's file alone, declared in its owner alone, which that file does not
 * export, and no key of a zod schema (`ownFieldMisuses`); like OWN_METHODS, it may be named
 * nowhere outside src/ (`outsideCallers`) and never in quotes.
 */
const ENGINE = path.join(__dirname, 'src/core/tasks/engine.ts');
const MANAGER = path.join(__dirname, 'src/core/servers/serverManager.ts');
const HOST = path.join(__dirname, 'src/core/host/taskHost.ts');
const OWN_FIELDS = new Map([
  ...['polling', 'resultCall', 'resultAbort', 'localUpdatedAt', 'seenIn', 'unheard'].map((f) => [f, ['Rec', ENGINE]]),
  ...['byList', 'probeAt', 'probeAfter'].map((f) => [f, ['ServerFollow', ENGINE]]),
  ...['connectingQuietly', 'retryAt', 'lastFailure', 'connectedAt', 'userDisconnected', 'waitsFor', 'unreached', 'cancelledByEdit', 'savedId'].map((f) => [f, ['Entry', MANAGER]]),
  // The task host's record of a task it runs for a server, and its state of that server.
  ['waiters', ['Rec', HOST]],
  ...['cursorKey', 'warnedAt'].map((f) => [f, ['ServerState', HOST]]),
  // Streamable HTTP's state of its server stream; the tool form's choice of JSON.
  ['retryMs', ['StreamState', path.join(__dirname, 'src/core/transports/streamableHttp.ts')]],
  ['asJson', ['ToolFormPrompter', path.join(__dirname, 'src/vscode/toolInputs.ts')]],
]);
const ownFields = [...OWN_FIELDS.keys()].join('|');

/**
 * The property names the bundle shortens (mangleProps), each with the only folder whose files may
 * name it. esbuild renames a name wherever it is written as a property, so a file elsewhere that
 * used one for something of its own would be renamed with it, and break in the bundle alone (zod's
 * core exports a `_url`, which its `z.url()` calls: mangling ws's `_url` broke it). The build fails
 * when a bundled file outside a name's folder names it.
 */
const SRC = path.join(__dirname, 'src', path.sep);
const MANGLED = new Map([
  ...OWN_METHODS.map((m) => [m, SRC]),
  ...[...OWN_FIELDS.keys()].map((f) => [f, SRC]),
  ...WS_FIELDS.map((f) => [f, path.join(__dirname, 'node_modules/ws/lib', path.sep)]),
]);
const mangledOwners = {
  name: 'mangled-owners',
  setup(build) {
    // A name in quotes (`x['_register']`) is not renamed: in its own folder too, it would break.
    const named = new RegExp(`(['"]?)\\b(${[...MANGLED.keys()].join('|')})\\b`, 'g');
    build.onStart(async () => {
      const calls = new RegExp(`\\b(${ownMethods}|${ownFields})\\b`, 'g');
      const errors = (await outsideCallers()).flatMap(({ file, text }) =>
        [...new Set(Array.from(text.matchAll(calls), (m) => m[1]))].map((name) => ({
          text: `${file} names ${name}, a ${OWN_FIELDS.has(name) ? 'field' : 'method'} the bundle renames: take it out of esbuild.js's ${OWN_FIELDS.has(name) ? 'OWN_FIELDS' : 'OWN_METHODS'}`,
        })),
      );
      return { errors };
    });
    build.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
      const text = await require('fs').promises.readFile(args.path, 'utf8');
      for (const [, quote, name] of text.matchAll(named)) {
        if (quote || !args.path.startsWith(MANGLED.get(name))) {
          throw new Error(`${args.path} names ${name}${quote ? ' in a string' : ''}, a property the bundle renames for ${MANGLED.get(name)} alone: take it out of esbuild.js's mangleProps`);
        }
      }
      const [misuse] = args.path.startsWith(SRC) ? ownMethodMisuses(args.path, text) : [];
      if (misuse) throw new Error(`${misuse}, not as a method the bundle renames: take it out of esbuild.js's OWN_METHODS`);
      const [fieldMisuse] = args.path.startsWith(SRC) ? ownFieldMisuses(args.path, text) : [];
      if (fieldMisuse) throw new Error(`${fieldMisuse}: take it out of esbuild.js's OWN_FIELDS`);
      return undefined;
    });
  },
};

/**
 * Where `file` names one of OWN_METHODS other than in declaring a method (or a property whose
 * value or type is a function) or calling it (`x.name(...)`, `x.name?.(...)`): a read, a write, a
 * shorthand or destructured property could be data. Each as "file:line uses name as <syntax>".
 */
const ownMethodMisuses = (file, text) => {
  if (!new RegExp(`\\b(${ownMethods})\\b`).test(text)) return [];
  const ts = require('typescript');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const own = new Set(OWN_METHODS);
  const isFunction = (n) => n !== undefined && (ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isFunctionTypeNode(n));
  const asMethod = (id, p) =>
    ts.isPropertyAccessExpression(p)
      ? p.name === id && ts.isCallExpression(p.parent) && p.parent.expression === p
      : ts.isMethodDeclaration(p) || ts.isMethodSignature(p) || ((ts.isPropertyDeclaration(p) || ts.isPropertyAssignment(p)) && p.name === id && isFunction(p.initializer)) || (ts.isPropertySignature(p) && isFunction(p.type));
  const isProperty = (id, p) =>
    (ts.isPropertyAccessExpression(p) && p.name === id) ||
    ((ts.isMethodDeclaration(p) || ts.isMethodSignature(p) || ts.isPropertyDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertySignature(p) || ts.isGetAccessor(p) || ts.isSetAccessor(p) || ts.isEnumMember(p)) && p.name === id) ||
    ts.isShorthandPropertyAssignment(p) ||
    (ts.isBindingElement(p) && ts.isObjectBindingPattern(p.parent) && (p.propertyName ?? p.name) === id);
  const misuses = [];
  const visit = (node) => {
    if (ts.isIdentifier(node) && own.has(node.text) && isProperty(node, node.parent) && !asMethod(node, node.parent)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      misuses.push(`${file}:${line} uses ${node.text} as ${ts.SyntaxKind[node.parent.kind]}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return misuses;
};

/**
 * Where `file` names one of OWN_FIELDS though it is not its owner's file, declares it in another
 * class or interface than its owner or in an owner it exports, or names it as a key of a zod
 * schema (in the arguments of a `z.` call). Each as "file:line <what>".
 */
const ownFieldMisuses = (file, text) => {
  if (!new RegExp(`\\b(${ownFields})\\b`).test(text)) return [];
  const ts = require('typescript');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const misuses = [];
  const at = (node) => `${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
  const inZodCall = (node) => {
    for (let n = node.parent; n; n = n.parent) if (ts.isCallExpression(n) && /^z\./.test(n.expression.getText(source))) return true;
    return false;
  };
  const visit = (node) => {
    const [owner, ownerFile] = (ts.isIdentifier(node) && OWN_FIELDS.get(node.text)) || [];
    const p = node.parent;
    if (!owner) {
      // Not one of them.
    } else if (path.resolve(file) !== ownerFile) {
      misuses.push(`${at(node)} names ${node.text} outside ${ownerFile}, the file of its owner ${owner}`);
    } else if (p.name === node && (ts.isPropertyDeclaration(p) || ts.isPropertySignature(p) || ts.isMethodDeclaration(p) || ts.isMethodSignature(p) || ts.isGetAccessor(p) || ts.isSetAccessor(p))) {
      const type = p.parent;
      const typeName = type.name?.text ?? ts.SyntaxKind[type.kind];
      if (typeName !== owner) misuses.push(`${at(node)} declares ${node.text} in ${typeName}, not in ${owner}`);
      else if (type.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) misuses.push(`${at(node)} declares ${node.text} in ${owner}, which its file exports`);
    } else if ((ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) && p.name === node && inZodCall(p)) {
      misuses.push(`${at(node)} names ${node.text} in a zod schema`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return misuses;
};

/**
 * What could call one of OWN_METHODS by name from outside the bundle: the editor's API and the
 * typings of Node and the language (an object we hand them, whose methods they call), the API we
 * export, and what runs against the bundle (integration and e2e tests, fixture extensions, the
 * editor scripts). The benchmarks call src/ through bundles of their own, built without
 * mangleProps (bench/lib/build.mjs), and only load and time the production one. Read once per
 * process.
 */
let outsideCallersRead;
const outsideCallers = () => {
  outsideCallersRead ??= (async () => {
    const { readdir, readFile } = require('fs').promises;
    const files = async (dir, ext) =>
      (await readdir(path.join(__dirname, dir), { recursive: true, withFileTypes: true }))
        .filter((e) => e.isFile() && ext.test(e.name))
        .map((e) => path.join(e.parentPath ?? e.path, e.name));
    const ours = /\.([cm]?[jt]s|json)$/;
    const all = (
      await Promise.all([
        files('node_modules/@types/node', /\.d\.ts$/),
        files('node_modules/@types/vscode', /\.d\.ts$/),
        files('node_modules/typescript/lib', /^lib\..*\.d\.ts$/),
        ...['api', 'test/integration', 'test/e2e', 'test/fixtures/extensions', 'scripts/editor'].map((d) => files(d, ours)),
        [path.join(__dirname, 'package.json')],
      ])
    ).flat();
    return Promise.all(all.map(async (file) => ({ file, text: await readFile(file, 'utf8') })));
  })();
  return outsideCallersRead;
};

/** How ws is bundled: also used by the test that runs the WebSocket transport as it ships. */
const wsBundling = {
  alias: { ws: path.join(__dirname, 'node_modules/ws/lib/websocket.js') },
  plugins: [mangledOwners, wsWithoutDeflate],
  mangleProps: new RegExp(`^(${wsFields})$`),
};

/** The options of the extension's bundle; the size benchmark builds with them too. */
function options({ production }) {
  return {
    entryPoints: [path.join(__dirname, 'src/extension.ts')],
    bundle: true,
    format: 'cjs',
    minify: production,
    sourcemap: !production,
    sourcesContent: false,
    platform: 'node',
    target: 'node20',
    outfile: path.join(__dirname, 'dist/extension.js'),
    external: ['vscode', 'bufferutil', 'utf-8-validate'],
    // We only ever open client sockets: bundle ws's client, not its server and stream helpers.
    alias: wsBundling.alias,
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'silent',
    metafile: true,
    // Our own methods and fields (OWN_METHODS, OWN_FIELDS) and ws's fields (WS_FIELDS) get short names; esbuild picks
    // names clear of every other property in the bundle. In both builds, so the integration tests
    // run what ships.
    mangleProps: new RegExp(`^(${ownMethods}|${ownFields}|${wsFields})$`),
    plugins: [...wsBundling.plugins, zodFixed, vscodeOnce, nodeOnce],
    // Statements labelled TESTS: what only tests read (the engine's followedCount, the scheduler's heapLength).
    dropLabels: ['TESTS'],
  };
}

async function main() {
  const base = options({ production });
  const ctx = await esbuild.context({ ...base, plugins: [...base.plugins, problemMatcher(watch)] });
  if (watch) {
    await ctx.watch();
  } else {
    const result = await ctx.rebuild();
    await ctx.dispose();
    if (process.argv.includes('--metafile')) {
      require('fs').writeFileSync('dist/meta.json', JSON.stringify(result.metafile));
    }
  }
}

module.exports = { problemMatcher, wsBundling, zodFixed, ZOD_PREMISES, zodMisuse, options, ownMethodMisuses, ownFieldMisuses, wsSends, wsDomStyle };

if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
