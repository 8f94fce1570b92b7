// The published site's search script (src/publish/assets/search.js) in node, against indexes
// the Rust test `publish::search::tests::the_script_in_node_finds_what_the_index_holds` writes
// into DIR:
//   DIR/tokens.json   strings with the tokens the Rust side makes of them: the script's must
//                     be the same, for the pages' text and for a query;
//   DIR/small/        a few pages' index, and DIR/cases.json what queries of it must find;
//   DIR/large/        10,000 pages' index (optional), and DIR/queries.json queries of it whose
//                     downloads must stay within 300 KB gzip-compressed (600 KB raw).
// Usage: node tests/publish/search.test.mjs DIR. Prints "search.test: all checks passed".

import { readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import assert from "node:assert/strict";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node search.test.mjs DIR");
  process.exit(2);
}

// The script is imported from its text, so that node reads it as a module whatever its
// package settings.
const source = await readFile(
  new URL("../../src/publish/assets/search.js", import.meta.url),
  "utf8",
);
const search = await import(
  "data:text/javascript;base64," + Buffer.from(source).toString("base64")
);

const readJson = async (path) => JSON.parse(await readFile(path, "utf8"));
let failures = 0;
const check = (what, f) => {
  try {
    f();
    console.log(`ok: ${what}`);
  } catch (e) {
    failures += 1;
    console.log(`FAIL: ${what}\n  ${e.message.split("\n").join("\n  ")}`);
  }
};

/** A search over DIR/site/search/ that counts the bytes it reads, raw and gzip-compressed. */
function site(name) {
  const read = { files: [], raw: 0, gzip: 0 };
  const engine = search.createSearch(async (file) => {
    const bytes = await readFile(join(dir, name, "search", file));
    read.files.push(file);
    read.raw += bytes.length;
    read.gzip += gzipSync(bytes).length;
    return JSON.parse(bytes.toString("utf8"));
  });
  return { engine, read };
}

for (const { text, index, query } of await readJson(join(dir, "tokens.json"))) {
  check(`tokens of ${JSON.stringify(text)}`, () => {
    assert.deepEqual(search.indexTokens(text), index);
    assert.deepEqual(search.queryTokens(text), query);
  });
}

check("code-point order, not UTF-16's", () => {
  assert.ok(search.compare("\u{20000}", "\uf900") > 0);
  assert.ok(search.compare("ab", "abc") < 0);
  assert.equal(search.compare("知識", "知識"), 0);
});

for (const c of await readJson(join(dir, "cases.json"))) {
  const { engine } = site("small");
  const answer = await engine.search(c.query);
  const urls = answer.hits.map((h) => h.url);
  check(`${JSON.stringify(c.query)} finds ${JSON.stringify(urls)}`, () => {
    if (c.urls) {
      assert.deepEqual([...urls].sort(), [...c.urls].sort());
    }
    if (c.first) {
      assert.equal(urls[0], c.first);
    }
    for (const url of c.has ?? []) {
      assert.ok(urls.includes(url), `${url} missing`);
    }
    if (c.mode) {
      assert.equal(answer.mode, c.mode);
    }
    for (const h of answer.hits) {
      assert.ok(typeof h.title === "string" && h.excerpt.length <= 160);
    }
  });
}

{
  const { engine } = site("small");
  const answer = await engine.search("gard");
  check("a query's last word finds the words it begins", () => {
    assert.ok(answer.hits.some((h) => h.url === "wiki/concepts/Garden%20Plan/"));
    assert.ok(answer.hits.some((h) => h.url === "wiki/sources/Seeds/"), "gardening");
  });
  const none = await engine.search(" ,; ");
  check("a query of no word finds nothing and reads nothing", () => {
    assert.equal(none.total, 0);
  });
}

if (existsSync(join(dir, "large"))) {
  for (const query of await readJson(join(dir, "queries.json"))) {
    const { engine, read } = site("large");
    const answer = await engine.search(query);
    const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
    check(
      `${JSON.stringify(query)}: ${answer.total} pages (${answer.mode}), ${read.files.length} ` +
        `files, ${kb(read.gzip)} gzip, ${kb(read.raw)} raw`,
      () => {
        assert.ok(answer.hits.length > 0, "no hit");
        assert.ok(read.gzip <= 300 * 1024, "more than 300 KB gzip-compressed");
        assert.ok(read.raw <= 600 * 1024, "more than 600 KB raw");
      },
    );
  }
}

if (failures > 0) {
  console.log(`search.test: ${failures} check(s) failed`);
  process.exit(1);
}
console.log("search.test: all checks passed");
