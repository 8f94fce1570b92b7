// Keeps an open page of `sparks view` current: the viewer tells every change the vault's
// watcher applies on GET /events (server-sent events, event `change`, data
// {seq, paths, more, links}), and this page reloads itself when the change touches what it
// shows: its own file, a page among its backlinks or citations, the pages a changed file now
// links to, or the wiki's index. A page that shows no one file (the index, tags, search, a
// 404) reloads on every change. Served from the viewer's own origin, so the Content-Security-
// Policy stays `script-src 'self'`; the browser reconnects by itself when the viewer restarts.
"use strict";
(() => {
  const me = document.currentScript;
  if (!me || !window.EventSource) {
    return;
  }
  const file = me.dataset.file || null;
  const related = new Set(JSON.parse(me.dataset.related || "[]"));
  const events = new EventSource("/events");
  events.addEventListener("change", (e) => {
    let change;
    try {
      change = JSON.parse(e.data);
    } catch {
      return;
    }
    const touches = (p) => p === file || p === "wiki/index.md" || related.has(p);
    if (
      change.more ||
      file === null ||
      change.paths.some(touches) ||
      change.links.includes(file)
    ) {
      events.close();
      window.location.reload();
    }
  });
})();
