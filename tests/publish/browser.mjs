// A published site in a real browser: Debian's Chromium, headless, driven by playwright-core,
// the site served by a static server of its own under a sub-path (/notes/, as a GitHub Pages
// project site is). Run by tests/cli/publish_browser.rs:
//   SPARKS_SITE         the folder `sparks publish` wrote
//   SPARKS_TEST_NODE    the directory holding node_modules/playwright-core
//   SPARKS_SCREENSHOTS  where to save screenshots
// Exits non-zero on the first failed check.

import fs from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import path from "node:path";

const site = process.env.SPARKS_SITE;
const nodeDir = process.env.SPARKS_TEST_NODE;
const shots = process.env.SPARKS_SCREENSHOTS;
if (!site || !nodeDir || !shots) {
  console.error("SPARKS_SITE, SPARKS_TEST_NODE and SPARKS_SCREENSHOTS must be set");
  process.exit(2);
}
const require = createRequire(path.join(nodeDir, "package.json"));
const { chromium } = require("playwright-core");

function check(ok, what) {
  if (!ok) {
    throw new Error(`check failed: ${what}`);
  }
  console.log(`ok: ${what}`);
}

// A static host: /notes/<path> is <site>/<path>, a folder its index.html, anything missing
// the site's 404.html with status 404 — what GitHub Pages does.
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css",
  ".js": "text/javascript",
  ".json": "application/json",
  ".md": "text/markdown; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".xml": "application/xml",
  ".ico": "image/x-icon",
  ".png": "image/png",
};
const missing = [];
const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://localhost");
  let rel = decodeURIComponent(url.pathname);
  if (!rel.startsWith("/notes/")) {
    res.writeHead(404).end();
    missing.push(rel);
    return;
  }
  rel = rel.slice("/notes/".length);
  let file = path.join(site, rel);
  if (!file.startsWith(site)) {
    res.writeHead(403).end();
    return;
  }
  if (fs.existsSync(file) && fs.statSync(file).isDirectory()) {
    if (!rel.endsWith("/") && rel !== "") {
      res.writeHead(301, { location: `${url.pathname}/` }).end();
      return;
    }
    file = path.join(file, "index.html");
  }
  if (!fs.existsSync(file)) {
    missing.push(url.pathname);
    res.writeHead(404, { "content-type": TYPES[".html"] });
    res.end(fs.readFileSync(path.join(site, "404.html")));
    return;
  }
  res.writeHead(200, {
    "content-type": TYPES[path.extname(file)] || "application/octet-stream",
    "content-security-policy": "default-src 'self'; img-src 'self' data:; style-src 'self'",
  });
  res.end(fs.readFileSync(file));
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const base = `http://127.0.0.1:${server.address().port}/notes/`;

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"],
});
try {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));

  await page.goto(base);
  check((await page.locator("main h1").textContent()) === "Allotment", "the index names the vault");
  await page.locator("main a", { hasText: "Garden Plan" }).first().click();
  await page.waitForLoadState();
  check(page.url().endsWith("/notes/wiki/concepts/Garden%20Plan/"), `a page opens at its folder (${page.url()})`);
  const article = await page.locator("article").textContent();
  check(article.includes("Plant tomatoes by the south wall"), "the page's text shows");
  check(article.includes("The shed key hangs"), "an embedded page shows in place");
  check(
    (await page.locator("article a", { hasText: "Hidden Thing" }).count()) === 0 && article.includes("Hidden Thing"),
    "a link to a private page is its text alone",
  );
  check((await page.locator("aside svg").count()) === 1, "the sidebar draws the page's neighbourhood");
  check(
    (await page.evaluate(() => getComputedStyle(document.querySelector(".bar")).display)) !== "inline",
    "the stylesheet loaded",
  );
  await page.screenshot({ path: path.join(shots, "publish-page.png"), fullPage: true });

  await page.locator("aside a", { hasText: "Tomatoes" }).first().click();
  await page.waitForLoadState();
  check(page.url().endsWith("/notes/wiki/entities/Tomatoes/"), "a sidebar link navigates");
  await page.locator("a.tag", { hasText: "#garden" }).first().click();
  await page.waitForLoadState();
  check((await page.locator("main h1").textContent()) === "#garden", "a tag chip opens the tag's page");

  // The search runs in the browser, from the index's files.
  for (const [query, title] of [["tomatoes wall", "Garden Plan"], ["知識", "Tomatoes"], ["shed", "Shed"]]) {
    await page.goto(`${base}search/?q=${encodeURIComponent(query)}`);
    await page.waitForSelector("#search-results li", { timeout: 5000 });
    const first = await page.locator("#search-results li a").first().textContent();
    check(first.includes(title), `the search finds "${title}" for "${query}" (first: ${first})`);
  }
  await page.goto(`${base}search/`);
  await page.fill("#search-input", "zebra");
  await page.press("#search-input", "Enter");
  await page.waitForTimeout(500);
  check((await page.locator("#search-results li").count()) === 0, "a private page's word finds nothing");
  await page.fill("#search-input", "tomatoes");
  await page.press("#search-input", "Enter");
  await page.waitForSelector("#search-results li");
  await page.screenshot({ path: path.join(shots, "publish-search.png"), fullPage: true });
  await page.locator("#search-results li a").first().click();
  await page.waitForLoadState();
  check(page.url().includes("/notes/wiki/"), "a search hit opens its page");

  // The search box of every page leads to the site's search, under the sub-path.
  await page.goto(`${base}wiki/entities/Shed/`);
  await page.fill("header input[name=q]", "tomatoes");
  await page.press("header input[name=q]", "Enter");
  await page.waitForSelector("#search-results li", { timeout: 5000 });
  check(page.url().startsWith(`${base}search/`), `the search box leads to the search (${page.url()})`);

  await page.goto(`${base}graph/`);
  check((await page.locator("main svg").count()) === 1, "the whole graph is drawn");

  // Without JavaScript the pages read the same.
  const still = await browser.newContext({ javaScriptEnabled: false });
  const plain = await still.newPage();
  await plain.goto(`${base}wiki/concepts/Garden%20Plan/`);
  check((await plain.locator("article").textContent()).includes("Plant tomatoes"), "a page reads with JavaScript off");
  await still.close();

  check(errors.length === 0, `no script error: ${errors.join("; ")}`);
  const wanted = missing.filter((m) => !m.includes("/notes/nowhere"));
  check(wanted.length === 0, `every file the pages asked for exists: ${wanted.join(", ")}`);
  console.log("browser: all checks passed");
} finally {
  await browser.close();
  server.close();
}
