// Each closed object of kgate's schemas refuses an unknown key: for every
// sample (SCHEMA:FILE arguments), every distinct place an object appears
// (its path, array indices dropped) gets one key the format does not have,
// and the schema must refuse that copy, naming the key; the unchanged
// sample must pass. Objects whose keys are data (a results file's
// "variants", keyed by a module's variant names) are open on purpose: listed
// below, their values closed objects of their own.
// Usage: node .ci/schema-closed.cjs AJV_NODE_MODULES SCHEMA:FILE...
const fs = require("fs"), path = require("path");
const [mods, ...samples] = process.argv.slice(2);
const Ajv2020 = require(path.join(mods, "ajv/dist/2020")).default;
const addFormats = require(path.join(mods, "ajv-formats"));
const ajv = new Ajv2020({strict: true, allErrors: true});
addFormats(ajv);
for (const f of fs.readdirSync("docs/schema")) ajv.addSchema(JSON.parse(fs.readFileSync(`docs/schema/${f}`, "utf8")));
const open = new Set(["results:/variants"]); // keys are names, not fields
const KEY = "kgate_unknown_key";
let fail = 0, proved = 0;
const seen = new Set();
for (const s of samples) {
  const [schema, file] = [s.slice(0, s.indexOf(":")), s.slice(s.indexOf(":") + 1)];
  const validate = ajv.getSchema(`https://kgate.invalid/schema/${schema}.schema.json`);
  const doc = JSON.parse(fs.readFileSync(file, "utf8"));
  if (!validate(doc)) { console.log(`schema-closed: ${file} breaks ${schema}`); fail = 1; continue; }
  const places = []; // [pointer, shape]
  (function walk(v, ptr, shape) {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${ptr}/${i}`, `${shape}/[]`));
    else if (v && typeof v === "object") {
      places.push([ptr, shape]);
      for (const [k, x] of Object.entries(v)) walk(x, `${ptr}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`, `${shape}/${k}`);
    }
  })(doc, "", "");
  for (const [ptr, shape] of places) {
    const id = `${schema}:${shape}`;
    const key = schema === "results" && /^\/variants\/[^/]+$/.test(shape) ? "results:/variants/*" : id;
    if (seen.has(key)) continue;
    seen.add(key);
    const copy = JSON.parse(JSON.stringify(doc));
    const target = ptr.split("/").slice(1).reduce((o, k) => o[k.replace(/~1/g, "/").replace(/~0/g, "~")], copy);
    target[KEY] = 1;
    const ok = validate(copy);
    if (open.has(id)) continue;
    const named = !ok && validate.errors.some(e =>
      (e.keyword === "additionalProperties" && e.params.additionalProperty === KEY) ||
      (e.keyword === "unevaluatedProperties" && e.params.unevaluatedProperty === KEY));
    if (!named) { console.log(`schema-closed: ${id} (in ${file}) accepts the unknown key ${KEY}`); fail = 1; }
    else proved++, process.env.KG_VERBOSE && console.log(`  ${id}`);
  }
}
console.log(`schema-closed: ${proved} closed objects refuse an unknown key (${seen.size} places in ${samples.length} samples; open, keyed by name: ${[...open].join(", ")})`);
process.exit(fail);
