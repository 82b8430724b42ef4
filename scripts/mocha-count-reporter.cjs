// Mocha's spec output, plus the counts written to test-results/<layer>.json for `npm test`'s total.
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

class CountReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const layer = (options.reporterOptions && options.reporterOptions.layer) || 'unit';
    let passed = 0;
    let failed = 0;
    let pending = 0;
    runner.on('pass', () => passed++);
    runner.on('fail', () => failed++);
    runner.on('pending', () => pending++);
    runner.once('end', () => {
      const dir = path.resolve('test-results');
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `${layer}.json`), JSON.stringify({ layer, passed, failed, skipped: pending }));
    });
  }
}
module.exports = CountReporter;
