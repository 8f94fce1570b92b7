// The viewer in a real browser: Debian's Chromium, headless, driven by playwright-core.
// Run by tests/cli/view.rs against a running `sparks view` on the fixture vault:
//   SPARKS_VIEW_URL     the viewer's URL (http://127.0.0.1:PORT)
//   SPARKS_TEST_NODE    the directory holding node_modules/playwright-core
//   SPARKS_SCREENSHOTS  where to save screenshots
//   SPARKS_VAULT        the vault's root (the live-reload checks edit its files)
// Exits non-zero on the first failed check.

import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const base = process.env.SPARKS_VIEW_URL;
const nodeDir = process.env.SPARKS_TEST_NODE;
const shots = process.env.SPARKS_SCREENSHOTS;
const vault = process.env.SPARKS_VAULT;
if (!base || !nodeDir || !shots || !vault) {
  console.error("SPARKS_VIEW_URL, SPARKS_TEST_NODE, SPARKS_SCREENSHOTS and SPARKS_VAULT must be set");
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

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});

// Visit every hostile page, click what were script links, and check that nothing ran.
async function hostile(page, dialogs, note = "") {
  for (const target of ["/wiki/concepts/Payload", "/raw/weblinks/clip", "/raw/inbox/2026-05-01"]) {
    await page.goto(`${base}${target}`);
    await page.waitForTimeout(400);
    check(await page.locator("main").isVisible(), `${target}: the page shows${note}`);
    check((await page.evaluate(() => window.pwned)) === undefined, `${target}: no payload set window.pwned${note}`);
    check(!(await page.evaluate(() => document.title)).includes("PWNED"), `${target}: the title is untouched${note}`);
  }
  await page.goto(`${base}/wiki/concepts/Payload`);
  check(
    (await page.locator("main").textContent()).includes("Harmless text after the payloads."),
    `the payload page renders its text${note}`,
  );
  // Clicking what were script links and toggling what had an event handler does nothing.
  await page.locator("a", { hasText: "click me" }).click();
  await page.locator("a", { hasText: "handler link" }).click();
  await page.locator("summary").click();
  await page.waitForTimeout(300);
  check((await page.evaluate(() => window.pwned)) === undefined, `clicking former script links runs nothing${note}`);
  check(dialogs.length === 0, `no dialog opened${note} (${JSON.stringify(dialogs)})`);
}

// Add an inline script and an inline error handler to the page; whether either ran.
async function injectInline(page) {
  await page.evaluate(() => {
    const s = document.createElement("script");
    s.textContent = "window.injected = 1";
    document.body.appendChild(s);
    const img = document.createElement("img");
    img.setAttribute("onerror", "window.injected = 1");
    img.src = "/no-such-image";
    document.body.appendChild(img);
  });
  await page.waitForTimeout(300);
  return (await page.evaluate(() => window.injected)) === 1;
}

// An open page keeps itself current: it reloads when its file is edited and when a new page
// links to it, and stays as it is when something unrelated changes. `window.unreloaded` is
// set on the page as it is; a reload (by the page's own script: nobody else reloads it)
// clears it.
async function live(page) {
  const mark = () => page.evaluate(() => (window.unreloaded = true));
  const unreloaded = () => page.evaluate(() => window.unreloaded === true);
  const main = () => page.locator("main").textContent();
  const cascade = path.join(vault, "wiki/concepts/Cascade.md");
  await page.goto(`${base}/wiki/concepts/Cascade`);
  check(!(await main()).includes("freshly edited"), "the page shows its file as it was");
  await mark();
  let started = Date.now();
  fs.writeFileSync(cascade, fs.readFileSync(cascade, "utf8").replace("Terraces.", "Terraces, freshly edited."));
  await page.waitForFunction(
    () => document.querySelector("main")?.textContent.includes("freshly edited"),
    null,
    { timeout: 10000 },
  );
  check(!(await unreloaded()), `an edit of the page's file shows by itself (${Date.now() - started} ms)`);

  await mark();
  started = Date.now();
  fs.writeFileSync(
    path.join(vault, "wiki/concepts/Trellis.md"),
    "---\ntitle: Trellis\ntype: concept\n---\n\nHolds up the [[Cascade]].\n",
  );
  await page.waitForFunction(
    () => [...document.querySelectorAll("aside a")].some((a) => a.textContent === "Trellis"),
    null,
    { timeout: 10000 },
  );
  check(!(await unreloaded()), `a new page linking here shows among the backlinks (${Date.now() - started} ms)`);

  // Something unrelated: the change reaches the browser (a second listener hears it), and
  // the page stays as it is.
  await mark();
  await page.evaluate(() => {
    window.heard = false;
    const es = new EventSource("/events");
    es.onopen = () => (window.listening = true);
    es.addEventListener("change", (e) => {
      if (JSON.parse(e.data).paths.includes("wiki/notes/Elsewhere.md")) {
        window.heard = true;
        es.close();
      }
    });
  });
  await page.waitForFunction(() => window.listening === true, null, { timeout: 10000 });
  fs.writeFileSync(path.join(vault, "wiki/notes/Elsewhere.md"), "Unrelated to the cascade.\n");
  await page.waitForFunction(() => window.heard === true, null, { timeout: 10000 });
  await page.waitForTimeout(300);
  check(await unreloaded(), "a change elsewhere leaves the open page alone");
}

let failed = false;
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const dialogs = [];
  const pageErrors = [];
  page.on("dialog", async (d) => {
    dialogs.push(d.message());
    await d.dismiss();
  });
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  const shot = (name, opts = {}) =>
    page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true, ...opts });

  // The index, and a click through to a page.
  await page.goto(`${base}/`);
  check((await page.locator("main h1").textContent()) === "vault", "the index has the vault's name");
  check((await page.locator(".group h2").count()) >= 3, "the index groups pages by type");
  await shot("index");
  await Promise.all([
    page.waitForURL(`${base}/wiki/entities/Garden%20Plan`),
    page.locator(".group a", { hasText: "Garden Plan" }).click(),
  ]);
  check((await page.locator("main h1").textContent()) === "Garden Plan", "clicking an index entry opens its page");
  await shot("page");

  // Broken and ambiguous links are marked, with a title saying why.
  const broken = page.locator(".prose .wikilink.broken");
  check((await broken.count()) === 1, "the broken link has the broken class");
  check((await broken.getAttribute("title")).includes("Nope"), "the broken link's title names its target");
  const brokenColor = await broken.evaluate((e) => getComputedStyle(e).color);
  const linkColor = await page
    .locator(".prose a.wikilink:not(.ambiguous):not(.broken)")
    .first()
    .evaluate((e) => getComputedStyle(e).color);
  check(brokenColor !== linkColor, "broken links look different from resolved ones");
  check((await page.locator(".prose .wikilink.ambiguous").count()) === 1, "the ambiguous link has its class");
  check(await page.locator("img.embed").evaluate((img) => img.complete && img.naturalWidth === 320), "the embedded image loads");

  // A link to a heading of the same page scrolls to an element that exists.
  const selfLink = page.locator('.prose a.wikilink[href="#soil-types"]');
  check((await selfLink.count()) === 1, "a [[#heading]] link points at the heading's id");
  check((await page.locator("#soil-types").count()) === 1, "the heading carries that id");

  // Dark mode and a narrow screen, for the eye.
  await page.emulateMedia({ colorScheme: "dark" });
  await shot("page-dark");
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 390, height: 844 });
  await shot("page-narrow");
  await page.setViewportSize({ width: 1280, height: 900 });

  // Clicking a wikilink navigates to the page it resolved to.
  await Promise.all([
    page.waitForURL(`${base}/wiki/concepts/Cascade`),
    page.locator(".prose a.wikilink", { hasText: /^Cascade$/ }).click(),
  ]);
  check((await page.locator("main h1").textContent()) === "Cascade", "clicking a wikilink opens its target");
  await Promise.all([
    page.waitForURL(`${base}/wiki/entities/Garden%20Plan#block-soil`),
    page.locator(".prose a.wikilink", { hasText: "Garden Plan › ^soil" }).first().click(),
  ]);
  check(
    await page.locator("#block-soil").evaluate((e) => e.matches(":target")),
    "a block link lands on the block's anchor",
  );

  // A tag page.
  await page.goto(`${base}/tag/gardening`);
  check((await page.locator("ul.pages li").count()) === 2, "the tag page lists its two pages");
  await shot("tag");

  // Search the text from the box in the top bar: the hit shows an extract with the word marked.
  await page.goto(`${base}/`);
  await page.locator(".bar input[name=q]").fill("loam");
  await Promise.all([page.waitForURL(/\/search\?q=loam$/), page.keyboard.press("Enter")]);
  check((await page.locator("ol.hits li").count()) === 1, "searching a word of a page's text finds the page");
  check((await page.locator("ol.hits li a").first().textContent()) === "Garden Plan", "the hit is Garden Plan");
  check((await page.locator("ol.hits .snippet mark").first().textContent()) === "Loam", "the extract marks the word");
  await shot("search");
  await Promise.all([
    page.waitForURL(`${base}/wiki/entities/Garden%20Plan`),
    page.locator("ol.hits li a").first().click(),
  ]);
  check((await page.locator("main h1").textContent()) === "Garden Plan", "clicking a hit opens its page");
  // Part of an alias is no word of the text: the page is listed by its name.
  // ("allot" is a stem of "Allotment": it finds the alias as a word since search stems.)
  await page.locator(".bar input[name=q]").fill("allo");
  await Promise.all([page.waitForURL(/\/search\?q=allo$/), page.keyboard.press("Enter")]);
  check((await page.locator("ol.hits li").count()) === 0, "no text hit for part of a word");
  check(
    (await page.locator(".names li a").first().textContent()) === "Garden Plan",
    "the page whose alias contains it is listed by name",
  );
  // The scope selector searches raw captures.
  await page.locator("main select[name=in]").selectOption("raw");
  await page.locator("main input[name=q]").fill("capture");
  await Promise.all([page.waitForURL(/\/search\?q=capture&in=raw$/), page.locator("main button").click()]);
  check((await page.locator("ol.hits li").count()) === 1, "the raw capture is found in raw scope");
  // The icon the browser asks for exists.
  check(
    await page.evaluate(async () => (await fetch("/favicon.ico")).ok),
    "/favicon.ico answers",
  );

  // Embeds in place and the graphs: a page written now (the watcher scans it) embeds a
  // section and a whole page; it shows them framed, with its neighbourhood, and /graph draws
  // the vault, with no console error and no CSP violation.
  const consoleErrors = [];
  const onConsole = (m) => m.type() === "error" && consoleErrors.push(m.text());
  page.on("console", onConsole);
  fs.writeFileSync(
    path.join(vault, "wiki/concepts/Reading.md"),
    "---\ntitle: Reading\ntype: synthesis\n---\n\nWhat the garden needs, in place:\n\n" +
      "![[Garden Plan#Soil Types]]\n\n![[Cascade]]\n\nMore in [[Garden Plan]].\n",
  );
  const started = Date.now();
  for (;;) {
    await page.goto(`${base}/wiki/concepts/Reading`);
    const framed = await page.locator("figure.embed:not(.embed-notice)").count();
    const drawn = await page.locator(".neighbourhood svg.graph").count();
    if (framed === 2 && drawn === 1) break;
    if (Date.now() - started > 10000) throw new Error(`check failed: the embeds show (${framed} framed, ${drawn} graph)`);
    await page.waitForTimeout(200);
  }
  check(
    (await page.locator("figure.embed .embed-body").first().textContent()).includes("Loam, mostly."),
    "an embedded section shows its text in a frame",
  );
  check(
    (await page.locator(".neighbourhood .node.current").getAttribute("data-path")) === "wiki/concepts/Reading.md",
    "the neighbourhood marks the page itself",
  );
  check((await page.locator(".neighbourhood .node").count()) >= 3, "the neighbourhood draws the linked pages");
  await shot("embed");
  await Promise.all([
    page.waitForURL(`${base}/wiki/entities/Garden%20Plan`),
    page.locator(".neighbourhood a.node[data-path='wiki/entities/Garden Plan.md']").click(),
  ]);
  check((await page.locator("main h1").textContent()) === "Garden Plan", "clicking a node of the graph opens its page");
  await page.goto(`${base}/graph`);
  check((await page.locator("main svg.graph .node").count()) >= 6, "/graph draws the vault's pages");
  check((await page.locator("main svg.graph line").count()) >= 4, "/graph draws the links");
  await shot("graph");
  page.off("console", onConsole);
  check(consoleErrors.length === 0, `no console error or CSP violation on embeds and graphs (${JSON.stringify(consoleErrors)})`);
  check(pageErrors.length === 0, `no script error on embeds and graphs (${JSON.stringify(pageErrors)})`);

  // Hostile pages: nothing runs, and the CSP would stop an inline script that got through.
  await hostile(page, dialogs);
  await shot("payload");
  check(
    !(await injectInline(page)),
    "the Content-Security-Policy blocks an inline script and handler added to the page",
  );
  check(pageErrors.length === 0, `no script error (${JSON.stringify(pageErrors)})`);

  // The same pages with the CSP switched off in the browser: the sanitiser alone must hold.
  const bare = await browser.newContext({ bypassCSP: true });
  const barePage = await bare.newPage();
  const bareDialogs = [];
  barePage.on("dialog", async (d) => {
    bareDialogs.push(d.message());
    await d.dismiss();
  });
  await hostile(barePage, bareDialogs, " (CSP bypassed)");
  check(await injectInline(barePage), "without the CSP an injected inline script does run (the check can fail)");
  await bare.close();

  await live(page);
  check(pageErrors.length === 0, `no script error after the live reloads (${JSON.stringify(pageErrors)})`);
  await context.close();
  console.log("browser: all checks passed");
} catch (e) {
  failed = true;
  console.error(e.stack || String(e));
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
