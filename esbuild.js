// Bundles the extension into one file: dist/extension.js (after vscode-extension-samples/esbuild-sample).
const esbuild = require('esbuild');

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** Prints errors in the shape of the `$esbuild-watch` problem matcher. */
const problemMatcher = {
  name: 'problem-matcher',
  setup(build) {
    build.onStart(() => console.log('[watch] build started'));
    build.onEnd((result) => {
      for (const { text, location } of result.errors) {
        console.error(`✘ [ERROR] ${text}`);
        if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
      }
      console.log('[watch] build finished');
    });
  },
};

async function main() {
  const ctx = await esbuild.context({
    entryPoints: ['src/extension.ts'],
    bundle: true,
    format: 'cjs',
    minify: production,
    sourcemap: !production,
    sourcesContent: false,
    platform: 'node',
    target: 'node20',
    outfile: 'dist/extension.js',
    external: ['vscode', 'bufferutil', 'utf-8-validate'],
    // We only ever open client sockets: bundle ws's client, not its server and stream helpers.
    // jsonc-parser's default entry is a UMD build whose inner requires do not survive bundling.
    alias: { ws: './node_modules/ws/lib/websocket.js', 'jsonc-parser': './node_modules/jsonc-parser/lib/esm/main.js' },
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'silent',
    metafile: true,
    plugins: [problemMatcher],
  });
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

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
