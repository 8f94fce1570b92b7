// The search of a published site, in the browser: the index `sparks publish` writes under
// search/ (its format is told in src/publish/search.rs) is read a piece at a time. A query
// fetches meta.json, the index chunks that hold its tokens (and, for its last word, the tokens
// it begins, from at most two chunks), then the page chunks of the hits shown. Pages must match
// every word; when none does, any word. Each word scores a page by the weight stored in its
// postings (BM25's term-frequency part, the title counting more) times the word's idf; a word
// found as the beginning of a longer token scores a little less. Queries are tokenised as the
// pages were: lowercased, Latin accents folded, letters and digits, CJK as characters and
// pairs. A module: the browser runs it from the search page, and a test imports it in node
// (it touches the page only where there is one). Every text it shows is set as text, never
// as HTML.

/** Hits shown. */
export const LIMIT = 20;
/** Chunks read for the words a query's last word begins. */
const PREFIX_CHUNKS = 2;
/** What a word found as a longer token's beginning scores, against the word itself. */
const PREFIX_FACTOR = 0.7;

/** Whether the code point `cp` is CJK, as src/cjk.rs's `is_cjk` says. */
export function isCjk(cp) {
  return (
    (cp >= 0x3040 && cp <= 0x30ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xac00 && cp <= 0xd7af) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x20000 && cp <= 0x2a6df)
  );
}

/** `text` lowercased, with the accents of Latin letters folded. */
export function normalise(text) {
  return text
    .toLowerCase()
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .normalize("NFC");
}

// Rust's char::is_alphanumeric: the Alphabetic property, or a number.
const ALNUM = /[\p{Alphabetic}\p{N}]/u;

/** The runs of `text` that hold tokens, as [isCjk, chars]. */
function runs(text) {
  const out = [];
  let current = null;
  for (const c of normalise(text)) {
    const cp = c.codePointAt(0);
    const kind = isCjk(cp) ? true : ALNUM.test(c) ? false : null;
    if (current && current[0] === kind) {
      current[1].push(c);
      continue;
    }
    if (current) {
      out.push(current);
    }
    current = kind === null ? null : [kind, [c]];
  }
  if (current) {
    out.push(current);
  }
  return out;
}

/** The tokens a page's text is indexed by, in order (as the Rust side makes them). */
export function indexTokens(text) {
  const out = [];
  for (const [cjk, chars] of runs(text)) {
    if (!cjk) {
      out.push(chars.join(""));
      continue;
    }
    chars.forEach((c, i) => {
      out.push(c);
      if (i + 1 < chars.length) {
        out.push(c + chars[i + 1]);
      }
    });
  }
  return out;
}

/** A query's words, each once: its words, and its CJK runs as their pairs (one alone). */
export function queryTokens(text) {
  const out = [];
  for (const [cjk, chars] of runs(text)) {
    if (!cjk) {
      out.push(chars.join(""));
    } else if (chars.length === 1) {
      out.push(chars[0]);
    } else {
      for (let i = 0; i + 1 < chars.length; i++) {
        out.push(chars[i] + chars[i + 1]);
      }
    }
  }
  return [...new Set(out)];
}

/** `a` against `b` in code-point order, the order of the index (not UTF-16's). */
export function compare(a, b) {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < x.length && i < y.length; i++) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d !== 0) {
      return d;
    }
  }
  return x.length - y.length;
}

/** The number of the chunk that holds `token` if any does: the last whose first is ≤ it. */
function chunkOf(meta, token) {
  let lo = 0;
  let hi = meta.index.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (compare(meta.index[mid][0], token) <= 0) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

/** Whether a query's last word `word` also matches as the beginning of longer tokens. */
function isPrefix(word) {
  const chars = [...word];
  return chars.length >= 2 && !isCjk(chars[0].codePointAt(0));
}

/** The chunks a query's words need: for each word its own, for a prefix those after it too. */
function chunksFor(meta, words, prefix) {
  const need = new Set();
  words.forEach((w) => need.add(chunkOf(meta, w)));
  if (prefix) {
    let i = chunkOf(meta, prefix);
    for (let n = 1; n < PREFIX_CHUNKS; n++) {
      i += 1;
      if (i >= meta.index.length || !meta.index[i][0].startsWith(prefix)) {
        break;
      }
      need.add(i);
    }
  }
  return [...need];
}

/** The postings of `list` (flat [id delta, weight, …]) added to `scores` as idf × weight. */
function score(scores, list, count, factor) {
  const df = list.length / 2;
  const idf = Math.log(1 + (count - df + 0.5) / (df + 0.5));
  let id = 0;
  for (let i = 0; i < list.length; i += 2) {
    id += list[i];
    // A page a word finds by more than one token scores by the best of them.
    const s = idf * list[i + 1] * factor;
    const before = scores.get(id);
    if (before === undefined || s > before) {
      scores.set(id, s);
    }
  }
}

/**
 * A search over the index that `load` reads: `load(name)` gives the parsed JSON of the file
 * `name` under search/ (`meta.json`, `index/….json`, `docs/….json`). Its `search(query)`
 * answers {mode: "and" | "or", total, hits: [{url, title, excerpt, score}]}, best first.
 */
export function createSearch(load) {
  let meta = null;
  const files = new Map();
  const file = (name) => {
    if (!files.has(name)) {
      files.set(
        name,
        load(name).catch((e) => {
          files.delete(name);
          throw e;
        }),
      );
    }
    return files.get(name);
  };
  const chunk = async (i) => {
    const entries = await file(`index/${meta.index[i][1]}.json`);
    return new Map(entries);
  };

  async function search(query, limit = LIMIT) {
    const words = queryTokens(query);
    if (words.length === 0) {
      return { mode: "and", total: 0, hits: [] };
    }
    meta ??= await file("meta.json");
    if (meta.index.length === 0) {
      return { mode: "and", total: 0, hits: [] };
    }
    const last = words[words.length - 1];
    const prefix = isPrefix(last) ? last : null;
    const numbers = chunksFor(meta, words, prefix);
    const maps = await Promise.all(numbers.map(chunk));
    const tokens = new Map();
    maps.forEach((m) => m.forEach((list, token) => tokens.set(token, list)));
    const perWord = words.map((w) => {
      const scores = new Map();
      if (tokens.has(w)) {
        score(scores, tokens.get(w), meta.count, 1);
      }
      if (w === prefix) {
        for (const [token, list] of tokens) {
          if (token !== w && token.startsWith(w)) {
            score(scores, list, meta.count, PREFIX_FACTOR);
          }
        }
      }
      return scores;
    });
    let mode = "and";
    let ranked = all(perWord);
    if (ranked.length === 0 && perWord.length > 1) {
      mode = "or";
      ranked = any(perWord);
    }
    ranked.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    const shown = ranked.slice(0, limit);
    const per = meta.docs.per;
    const hits = await Promise.all(
      shown.map(async ([id, s]) => {
        const docs = await file(`docs/${meta.docs.chunks[Math.floor(id / per)]}.json`);
        const [url, title, excerpt] = docs[id % per];
        return { url, title, excerpt, score: s };
      }),
    );
    return { mode, total: ranked.length, hits };
  }

  return { search };
}

/** The pages every word scores, as [id, summed score]. */
function all(perWord) {
  const [smallest, ...rest] = [...perWord].sort((a, b) => a.size - b.size);
  const out = [];
  for (const [id, s] of smallest) {
    if (rest.every((m) => m.has(id))) {
      out.push([id, rest.reduce((sum, m) => sum + m.get(id), s)]);
    }
  }
  return out;
}

/** The pages any word scores, as [id, summed score]. */
function any(perWord) {
  const sums = new Map();
  perWord.forEach((m) => m.forEach((s, id) => sums.set(id, (sums.get(id) ?? 0) + s)));
  return [...sums];
}

/** The search page: the form, its results as they are typed, and the query in the address. */
function init() {
  const form = document.getElementById("search-form");
  const input = document.getElementById("search-input");
  const status = document.getElementById("search-status");
  const list = document.getElementById("search-results");
  if (!form || !input || !status || !list) {
    return;
  }
  const here = import.meta.url;
  const engine = createSearch(async (name) => {
    const response = await fetch(new URL(name, here), {
      cache: name === "meta.json" ? "no-cache" : "default",
    });
    if (!response.ok) {
      throw new Error(`${name}: ${response.status}`);
    }
    return response.json();
  });
  let latest = 0;
  let timer = null;

  const show = (answer) => {
    list.replaceChildren();
    for (const hit of answer.hits) {
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = new URL(`../${hit.url}`, here).href;
      link.textContent = hit.title || hit.url;
      const excerpt = document.createElement("p");
      excerpt.textContent = hit.excerpt;
      item.append(link, excerpt);
      list.append(item);
    }
    const n = answer.total;
    if (n === 0) {
      status.textContent = "No page matches.";
    } else {
      const of = n > answer.hits.length ? `, the first ${answer.hits.length} shown` : "";
      const some = answer.mode === "or" ? " (no page has every word: pages with some)" : "";
      status.textContent = `${n} page${n === 1 ? "" : "s"}${of}${some}.`;
    }
  };

  const run = async () => {
    const query = input.value.trim();
    const url = new URL(window.location.href);
    if (query) {
      url.searchParams.set("q", query);
    } else {
      url.searchParams.delete("q");
    }
    window.history.replaceState(null, "", url);
    const mine = ++latest;
    if (!query) {
      list.replaceChildren();
      status.textContent = "";
      return;
    }
    try {
      const answer = await engine.search(query);
      if (mine === latest) {
        show(answer);
      }
    } catch {
      if (mine === latest) {
        list.replaceChildren();
        status.textContent = "The search index could not be read.";
      }
    }
  };

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    clearTimeout(timer);
    run();
  });
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(run, 150);
  });
  const q = new URLSearchParams(window.location.search).get("q");
  if (q) {
    input.value = q;
    run();
  }
}

if (typeof document !== "undefined") {
  init();
}
