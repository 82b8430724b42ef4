import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const NODE_GLOBALS = Object.fromEntries(
  ['process', 'console', 'Buffer', 'URL', 'URLSearchParams', 'fetch', 'AbortController', 'AbortSignal', 'TextEncoder', 'TextDecoder', 'structuredClone', 'queueMicrotask', 'performance', 'globalThis', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate', 'require', 'module', 'exports', '__dirname', '__filename', 'Response', 'Headers', 'Request', 'WebSocket', 'Event', 'EventTarget', 'crypto'].map((g) => [g, g === 'module' || g === 'exports' ? 'writable' : 'readonly']),
);

// A module-level function of src/ is a const arrow: esbuild writes `f=a=>…` for it where a
// declaration costs `function f(a){return …}`, about 9 bytes each (2.8 KB over src/ in all). Left
// as declarations: never-returning functions (TypeScript narrows after a call only to those).
const FUNCTIONS_AS_ARROWS = {
  selector: 'Program > FunctionDeclaration, Program > ExportNamedDeclaration > FunctionDeclaration',
  message: 'Write a module-level function as `const f = (...): R => ...` (smaller bundle; see eslint.config.mjs).',
};

// Type checks and builtins that src/ writes often, each spelled once in the bundle: through
// src/core/util/json (isString, isNumber, isObjectLike; stringify, fromJson), src/core/util/builtins
// (isArray, entriesOf, keysOf, fromEntries, minOf, maxOf, round, floor, isFiniteNumber, parseDate),
// src/core/util/abort (anySignal) and src/core/util/promise (rejected): 3.4 KB in all, kept so by these rules.
const TYPEOF_GUARDS = {
  selector: [
    "BinaryExpression[left.operator='typeof'][right.value=/^(string|number)$/]",
    "LogicalExpression[left.left.operator='typeof'][left.right.value='object'][right.right.raw='null']",
    "LogicalExpression[right.left.operator='typeof'][right.right.value='object'][left.right.raw='null']",
  ].join(', '),
  message: 'Use isString, isNumber or isObjectLike from src/core/util/json (smaller bundle; see eslint.config.mjs).',
};
// A notification's text may carry a server's: src/vscode/notify.ts shows it unlinked, so no site forgets to.
const NOTIFICATIONS = {
  selector: ['name', 'value'].map((k) => `MemberExpression[property.${k}=/^show(Information|Warning|Error)Message$/]`).join(', '),
  message: "Use showInfo, showWarning or showError from src/vscode/notify.ts: they show a server's text unlinked.",
};
const BOUND_ONCE = [
  { object: 'JSON', property: 'stringify', message: 'Use stringify from src/core/util/json (bound once: smaller bundle).' },
  { object: 'Array', property: 'isArray', message: 'Use isArray from src/core/util/builtins (bound once: smaller bundle).' },
  { object: 'Object', property: 'entries', message: 'Use entriesOf from src/core/util/builtins (bound once: smaller bundle).' },
  { object: 'Object', property: 'keys', message: 'Use keysOf from src/core/util/builtins (bound once: smaller bundle).' },
  { object: 'Object', property: 'fromEntries', message: 'Use fromEntries from src/core/util/builtins (bound once: smaller bundle).' },
  { object: 'JSON', property: 'parse', message: 'Use fromJson from src/core/util/json (bound once: smaller bundle).' },
  { object: 'Math', property: 'min', message: 'Use minOf from src/core/util/builtins (bound once: smaller bundle).' },
  { object: 'Math', property: 'max', message: 'Use maxOf from src/core/util/builtins (bound once: smaller bundle).' },
  { object: 'Math', property: 'round', message: 'Use round from src/core/util/builtins (bound once: smaller bundle).' },
  { object: 'Math', property: 'floor', message: 'Use floor from src/core/util/builtins (bound once: smaller bundle).' },
  { object: 'Number', property: 'isInteger', message: 'Use isInteger from src/core/util/builtins (bound once: smaller bundle).' },
  { object: 'Number', property: 'isSafeInteger', message: 'Use isSafeInteger from src/core/util/builtins (bound once: smaller bundle).' },
  { object: 'Object', property: 'hasOwn', message: 'Use hasOwn from src/core/util/builtins (bound once: smaller bundle).' },
  { object: 'Number', property: 'isFinite', message: 'Use isFiniteNumber from src/core/util/builtins (bound once: smaller bundle).' },
  { object: 'Date', property: 'parse', message: 'Use parseDate from src/core/util/builtins (bound once: smaller bundle).' },
  { object: 'AbortSignal', property: 'any', message: 'Use anySignal from src/core/util/abort (bound once: smaller bundle).' },
  { object: 'Promise', property: 'reject', message: 'Use rejected from src/core/util/promise (written once: smaller bundle).' },
];

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.vscode-test/**', 'bench/results/**', 'demo/**/node_modules/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'smart'],
      'no-throw-literal': 'error',
      curly: ['error', 'multi-line'],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'z', property: 'catch', message: "Use fallback() from src/core/util/zod: z.catch bundles all of zod's utilities (9 KB)." },
        { object: 'z', property: 'int', message: "Use SafeInt from src/core/util/zod: z.int() bundles all of zod's number formats (1.4 KB)." },
        { object: 'z', property: 'base64', message: "Use base64() from src/core/util/zod: z.base64() bundles zod's string formats (0.8 KB)." },
        { object: 'z', property: 'discriminatedUnion', message: "Check by the type's own schema in a z.check (see ContentBlockSchema in src/core/sampling/request.ts): z.discriminatedUnion brings 1.7 KB." },
        { object: 'z', property: 'gte', message: "Use atLeast() from src/core/util/zod: z.gte brings zod's class for it (0.3 KB)." },
        { object: 'z', property: 'nonnegative', message: "Use atLeast(0) from src/core/util/zod: z.nonnegative brings zod's class for it (0.3 KB)." },
        { object: 'z', property: 'enum', message: 'Use z.literal([...]): it checks and words its issues as z.enum does, and the bundle has it already (z.enum: 0.8 KB more).' },
        { object: 'z', property: 'transform', message: "Shape the value before safeParse (see withContentArrays): z.transform and z.pipe bring zod's pipes (1.2 KB)." },
        { object: 'z', property: 'pipe', message: "Shape the value before safeParse (see withContentArrays): z.transform and z.pipe bring zod's pipes (1.2 KB)." },
        { object: 'z', property: 'null', message: 'Use z.literal(null): the same check, and the bundle has z.literal already (z.null: 0.4 KB more).' },
        ...BOUND_ONCE,
      ],
      'no-restricted-syntax': ['error', FUNCTIONS_AS_ARROWS, TYPEOF_GUARDS],
    },
  },
  {
    files: ['src/vscode/**/*.ts', 'src/extension.ts'],
    rules: { 'no-restricted-syntax': ['error', FUNCTIONS_AS_ARROWS, TYPEOF_GUARDS, NOTIFICATIONS] },
  },
  {
    // The core speaks MCP only; the editor is reached through src/vscode.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'src/core must not depend on the editor: put this in src/vscode.' }],
          patterns: [{ group: ['**/vscode/**', '../vscode', '../../vscode'], message: 'src/core must not import src/vscode.' }],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.name='require'][arguments.0.value='vscode']",
          message: 'src/core must not depend on the editor.',
        },
        FUNCTIONS_AS_ARROWS,
        TYPEOF_GUARDS,
      ],
    },
  },
  {
    // Where the guards and the bound builtins are written.
    files: ['src/core/util/json.ts', 'src/core/util/builtins.ts'],
    rules: { 'no-restricted-syntax': ['error', FUNCTIONS_AS_ARROWS], 'no-restricted-properties': 'off' },
  },
  {
    // Where Promise.reject is written, once.
    files: ['src/core/util/promise.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // Scripts, fixtures and benchmarks: plain Node.js (CommonJS or ESM).
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    languageOptions: { globals: NODE_GLOBALS },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
