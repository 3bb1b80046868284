// Loads the rendered nightly site in headless Chromium (playwright-core
// driving the system's chromium): index.html and archive.html must load with
// no console error, no page error and no failed request; every local link and
// image on them must load; external links (commits, compare ranges) must be
// well-formed http(s) URLs. The first screen (the viewport at 1400x900) must
// show at least one chart (an image, or an SVG <object>), and with --findings the findings panel
// too. At a phone's 390 px the page must not scroll sideways and the findings' boxes must fit.
// Writes a screenshot of the first screen (and the phone's) and of the whole page, and
// prints the first screen's text. Exit 1 on any failure.
// Usage: node site-check.cjs SITE SHOTS [--findings]
"use strict";
const fs = require("fs");
const path = require("path");
const { chromium } = require(path.join(process.env.PLAYWRIGHT_DIR, "playwright-core"));

const site = path.resolve(process.argv[2]);
const shots = path.resolve(process.argv[3]);
const wantFindings = process.argv[4] === "--findings";
const problems = [];

(async () => {
  // CHROMIUM=playwright: the browser playwright installed; otherwise the system's.
  const exe = process.env.CHROMIUM || "/usr/bin/chromium";
  const browser = await chromium.launch({ ...(exe === "playwright" ? {} : { executablePath: exe }), args: ["--no-sandbox"] });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console error on ${page.url()}: ${m.text()}`); });
  page.on("pageerror", (e) => problems.push(`page error on ${page.url()}: ${e.message}`));
  page.on("requestfailed", (r) => problems.push(`failed request ${r.url()}: ${r.failure().errorText}`));
  const checked = new Set();
  for (const name of ["index.html", "archive.html"]) {
    const url = "file://" + path.join(site, name);
    let resp = null;
    try {
      resp = await page.goto(url, { waitUntil: "load" });
    } catch (e) {
      problems.push(`${name} did not load: ${e.message.split("\n")[0]}`);
      continue;
    }
    if (!resp || !resp.ok()) { problems.push(`${name} did not load`); continue; }
    if (name === "index.html") {
      await page.screenshot({ path: path.join(shots, "first-screen.png") });
      await page.screenshot({ path: path.join(shots, "full-page.png"), fullPage: true });
      // What a reader sees without scrolling: the text of the elements whose top is in the viewport.
      const text = await page.evaluate(() => {
        const out = [];
        for (const el of document.body.querySelectorAll("h1,h2,h3,p,li,tr")) {
          if (el.parentElement.closest("li,tr,p")) continue;
          const r = el.getBoundingClientRect();
          if (r.top >= 0 && r.top < window.innerHeight) out.push(el.innerText.replace(/\s+/g, " ").trim());
        }
        return [...new Set(out)].join("\n");
      });
      fs.writeFileSync(path.join(shots, "first-screen.txt"), text + "\n");
      // Issue 22: the first screen holds the charts themselves, and the findings when there are any.
      const first = await page.evaluate(() => {
        const inView = (el) => el && el.getBoundingClientRect().top < window.innerHeight;
        // A chart: a PNG image, or the SVG in an <object> (its points' tooltips work there), drawn at a readable size.
        const charts = [...document.images, ...document.querySelectorAll('object[type="image/svg+xml"]')];
        return { img: charts.some((c) => inView(c) && c.getBoundingClientRect().height > 100),
                 findings: inView(document.getElementById("findings")) };
      });
      if (!first.img) problems.push("index.html: no chart image on the first screen (1400x900)");
      // Issue 48: a headline chart is drawn near its own size at 1400 px (two a row drew a 1500 px
      // figure at 45 %, its text about 5 px): at least 80 % of its width.
      const scale = await page.evaluate(() => {
        const o = document.querySelector('.shot object[type="image/svg+xml"]');
        const w = o && parseFloat(getComputedStyle(o).getPropertyValue("--w"));
        return o && w ? o.getBoundingClientRect().width / w : null;
      });
      if (scale !== null && scale < 0.8) problems.push(`index.html at 1400 px: the headline chart at ${Math.round(100 * scale)} % of its size`);
      if (wantFindings && !first.findings) problems.push("index.html: the findings panel is not on the first screen");
      const images = await page.evaluate(() => [...document.images].filter((i) => !i.complete || !i.naturalWidth).map((i) => i.src));
      for (const i of images) problems.push(`image did not load: ${i}`);
      // A phone (390 px): the page never scrolls sideways (wide charts and tables scroll in their
      // own box), and the findings' boxes, with a culprit's links, fit the screen.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.reload({ waitUntil: "load" });
      await page.screenshot({ path: path.join(shots, "phone-first-screen.png") });
      const phone = await page.evaluate(() => ({
        wide: document.documentElement.scrollWidth - window.innerWidth,
        boxes: [...document.querySelectorAll("#findings .box")].filter((b) => b.getBoundingClientRect().right > window.innerWidth).length,
        // the tallest row of a table: a row is one line, the table scrolls sideways instead
        row: Math.max(0, ...[...document.querySelectorAll("table tr")].map((r) => r.getBoundingClientRect().height)),
      }));
      if (phone.wide > 0) problems.push(`index.html at 390 px scrolls sideways by ${phone.wide} px`);
      if (phone.row > 40) problems.push(`index.html at 390 px: a table row ${Math.round(phone.row)} px tall (cells wrap)`);
      if (phone.boxes) problems.push(`index.html at 390 px: ${phone.boxes} finding box(es) wider than the screen`);
      await page.setViewportSize({ width: 1400, height: 900 });
    }
    const links = await page.evaluate(() => [...document.querySelectorAll("a[href]")].map((a) => a.getAttribute("href"))
      .concat([...document.querySelectorAll("object[data]")].map((o) => o.getAttribute("data"))));
    for (const href of links) {
      if (href.startsWith("#")) {
        const id = href.slice(1);
        if (!(await page.$(`[id="${id}"]`))) problems.push(`${name}: link ${href} has no target`);
      } else if (/^https?:/.test(href)) {
        try { new URL(href); } catch { problems.push(`${name}: malformed URL ${href}`); }
      } else if (!checked.has(href)) {
        checked.add(href);
        const file = path.join(site, decodeURIComponent(href));
        if (!file.startsWith(site + path.sep) || !fs.existsSync(file)) problems.push(`${name}: broken link ${href}`);
      }
    }
  }
  // Each linked chart loads as an image in the browser.
  for (const href of [...checked].filter((h) => /\.(png|svg)$/.test(h))) {
    const file = path.join(site, decodeURIComponent(href));
    if (!fs.existsSync(file)) continue; // reported above
    try {
      const resp = await page.goto("file://" + file);
      if (!resp || !resp.ok()) problems.push(`chart ${href} did not load`);
    } catch (e) {
      problems.push(`chart ${href} did not load: ${e.message.split("\n")[0]}`);
    }
  }
  await browser.close();
  const pages = ["index.html", "archive.html"].map((n) => `${n} ${fs.statSync(path.join(site, n)).size} B`).join(", ");
  console.log(`site-check: ${pages}; ${checked.size} local links checked`);
  for (const p of problems) console.log(`site-check: ${p}`);
  process.exit(problems.length ? 1 : 0);
})().catch((e) => { console.error(`site-check: ${e.message}`); process.exit(3); });
