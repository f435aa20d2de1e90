'use strict';
// require('handoff-ledger'). The package is an ES module; Node ≥ 20.19 and ≥ 22.12 can
// require() one, older Nodes (or one started with --no-experimental-require-module) cannot and
// say so in words about require internals. This says what to do instead.
try {
  module.exports = require('../dist/src/library.js');
} catch (error) {
  if (error && error.code === 'ERR_REQUIRE_ESM') {
    throw new Error(
      `handoff-ledger is an ES module, and this Node (${process.version}) cannot require() it: ` +
        "use import() (const { openLedger } = await import('handoff-ledger')), or Node ≥ 20.19 " +
        '(or ≥ 22.12), where require() of an ES module works.',
      { cause: error },
    );
  }
  throw error;
}
