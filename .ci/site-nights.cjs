// Writes a run of nights for .ci/site-check's paired page: copies of a paired
// results file (tests/data/h200-paired.json), one a night with its own date and
// commit, each cell's ratio jittered by a fixed pattern (about 0.1 %), and from
// night STEP on one cell (reduce1_strided f32 2^25) slower by 2 %: a
// regression for the detector to find, with a commit range to link.
// Usage: node .ci/site-nights.cjs PAIRED.json OUTDIR NIGHTS STEP
"use strict";
const fs = require("fs");
const path = require("path");
const [src, out, nights, step] = [process.argv[2], process.argv[3], +process.argv[4], +process.argv[5]];
const base = JSON.parse(fs.readFileSync(src, "utf8"));
for (let k = 0; k < nights; k++) {
  const night = JSON.parse(JSON.stringify(base));
  night.run.date = `2026-11-${String(10 + k).padStart(2, "0")}T02:00:00Z`;
  night.run.kgate_commit = (0xa11ce00 + k).toString(16);
  night.paired.cells.forEach((c, i) => {
    if (!(c.blocks > 0)) return;
    let f = 1 + 0.001 * (((k * 7 + i * 3) % 5) - 2) / 2;
    if (k >= step && c.variant === "reduce1_strided" && c.dtype === "f32" && c.n === 33554432) f *= 1.02;
    for (const key of ["ratio", "lo", "hi"]) c[key] *= f;
    c.head_us *= f;
  });
  fs.writeFileSync(path.join(out, `night-${String(k).padStart(2, "0")}.json`), JSON.stringify(night));
}
