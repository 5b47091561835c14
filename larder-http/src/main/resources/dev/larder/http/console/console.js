/*
 * The Larder console: polls /api/caches every second and renders either the overview (one
 * table row per cache, the server, log and cluster panels when the API reports those sections,
 * and live charts over two minutes of history) or, at #/cache/<name>, one cache's page
 * (browser.js). Every cell carries the raw figure it shows in data-value, so tests (and curious
 * users) can compare the page with the API exactly; a figure the API leaves out (the cache does
 * not measure it) has its cell hidden, and a chart leaves such a cache out and says so.
 *
 * Requests go to location.origin + path, never to a relative URL: a page opened as
 * http://user:password@host/ has credentials in its base URL, and fetch refuses to build a
 * request from such a URL; the browser sends the credentials it already has for the origin.
 */
"use strict";

const LarderApi = (() => {
  /** fetch() of a path on this console's origin, with the credentials the browser holds. */
  function request(path, options) {
    return fetch(new URL(path, window.location.origin),
      { cache: "no-store", credentials: "same-origin", ...(options || {}) });
  }

  /** The API's error message from a refused response, or its status. */
  async function problem(response) {
    try {
      const body = await response.json();
      if (body && body.error) return response.status + ": " + body.error;
    } catch (ignored) {
      // not JSON: the status says enough
    }
    return "HTTP " + response.status;
  }

  return { request, problem };
})();

(() => {
  const F = LarderFormat;
  const POLL_MILLIS = 1000;
  const WINDOW_MILLIS = 120 * 1000; // history kept, and the widest chart window
  const MIN_WINDOW_MILLIS = 10 * 1000;
  const COLORS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2",
    "#ca8a04", "#db2777"];
  // cache name -> {color, points: [{t, hit, memory, reads, writes}]}
  const history = new Map();
  const serverHistory = []; // [{t, commands}]
  let previous = null; // the last overview, to turn counters into rates

  // ---- the table ----
  function cell(row, field, text, value, className) {
    let td = row.querySelector(`td[data-field="${field}"]`);
    if (!td) {
      td = document.createElement("td");
      td.dataset.field = field;
      if (className) td.className = className;
      row.appendChild(td);
    }
    td.dataset.value = value === null || value === undefined ? "" : String(value);
    // A null text leaves the td's children to the caller, which updates them in place.
    if (text !== null) td.textContent = text;
    return td;
  }

  // Returns the td's child of the given class, made on first use. Cells update their children in
  // place on every poll, so an element a reader (or a test) holds stays the one on the page.
  function child(parent, tag, className) {
    let el = parent.querySelector(`:scope > .${className}`);
    if (!el) {
      el = document.createElement(tag);
      el.className = className;
      parent.appendChild(el);
    }
    return el;
  }

  function memoryCell(row, cache) {
    const td = cell(row, "memory", null, cache.memoryUsed, "memory");
    td.dataset.max = cache.maximumMemory === null ? "" : String(cache.maximumMemory);
    child(td, "div", "memory-text").textContent = cache.maximumMemory === null
      ? F.bytes(cache.memoryUsed) + " (no byte bound)"
      : F.bytes(cache.memoryUsed) + " / " + F.bytes(cache.maximumMemory);
    if (cache.maximumMemory === null) {
      td.querySelector(":scope > .bar")?.remove();
      return;
    }
    const fraction = Math.min(1, cache.memoryUsed / cache.maximumMemory);
    const bar = child(td, "div", "bar");
    bar.dataset.level = fraction >= 0.95 ? "full" : fraction >= 0.8 ? "high" : "normal";
    bar.title = (fraction * 100).toFixed(1) + "% of the bound";
    const fill = bar.firstElementChild || bar.appendChild(document.createElement("span"));
    fill.style.width = (fraction * 100).toFixed(2) + "%";
  }

  function latencyText(l) {
    return l.count === 0 ? "–" : F.nanos(l.p50Nanos) + " / " + F.nanos(l.p99Nanos);
  }

  function renderRow(tbody, cache) {
    let row = tbody.querySelector(`tr[data-cache="${CSS.escape(cache.name)}"]`);
    if (!row) {
      row = document.createElement("tr");
      row.dataset.cache = cache.name;
      tbody.appendChild(row);
    }
    const name = cell(row, "name", null, cache.name, "name");
    const link = child(name, "a", "cache-link");
    link.href = "#/cache/" + encodeURIComponent(cache.name);
    link.textContent = cache.name;
    cell(row, "entries", F.count(cache.entries), cache.entries, "num");
    memoryCell(row, cache);
    cell(row, "hitRatio", F.percent(cache.hitRatio), cache.hitRatio, "num");
    for (const op of ["get", "put", "load"]) {
      // An operation the cache does not time is absent from the API: its cell is hidden,
      // not shown as 0 or "–" (which would read as "timed, none recorded").
      const l = cache.latency[op];
      const td = cell(row, op + "Latency", l ? latencyText(l) : "",
        l ? l.p50Nanos + "/" + l.p99Nanos : null, "num");
      td.dataset.measured = String(Boolean(l));
      td.title = l ? "" : "not measured by this cache";
    }
    cell(row, "evictions", F.count(cache.evictions), cache.evictions, "num");
    cell(row, "expirations", F.count(cache.expirations), cache.expirations, "num");
    const stats = cell(row, "statistics", null, cache.statistics);
    const badge = child(stats, "span", "badge");
    badge.classList.toggle("off", !cache.statistics);
    badge.textContent = cache.statistics ? "on" : "off";
    badge.title = cache.statistics ? "" : "counts stay 0: the cache does not record statistics";
  }

  function renderTable(caches) {
    const tbody = document.querySelector("#caches tbody");
    const names = new Set(caches.map(c => c.name));
    for (const row of [...tbody.rows]) {
      if (!names.has(row.dataset.cache)) row.remove();
    }
    caches.forEach(c => renderRow(tbody, c));
    // Keep the API's order (by name).
    caches.forEach(c => tbody.appendChild(
      tbody.querySelector(`tr[data-cache="${CSS.escape(c.name)}"]`)));
    document.getElementById("no-caches").hidden = caches.length > 0;
  }

  // ---- status sections (server, log, cluster, others) ----
  function sectionRow(tbody, label, text, value) {
    let tr = tbody.querySelector(`tr[data-label="${CSS.escape(label)}"]`);
    if (!tr) {
      tr = tbody.insertRow();
      tr.dataset.label = label;
      tr.insertCell().textContent = F.label(label);
      tr.insertCell().dataset.field = label;
    }
    tr.cells[1].textContent = text;
    tr.cells[1].dataset.value = value === null || value === undefined ? "" : String(value);
    tbody.appendChild(tr);
  }

  /** The server's panel also shows commands per second, from two polls' counts. */
  function serverRate(figures, elapsed) {
    const before = previous && previous.sections && previous.sections.server;
    if (!before || !(elapsed > 0) || typeof figures.commandsProcessed !== "number") return null;
    return Math.max(0, (figures.commandsProcessed - before.commandsProcessed) / elapsed);
  }

  function renderSections(sections, elapsed) {
    const seen = new Set();
    for (const [name, figures] of Object.entries(sections || {})) {
      seen.add(name);
      let panel = document.querySelector(`section[data-section="${CSS.escape(name)}"]`);
      if (!panel) {
        panel = document.createElement("section");
        panel.className = "status-section";
        panel.dataset.section = name;
        panel.innerHTML = "<h2></h2><table class=\"kv\"><tbody></tbody></table>";
        panel.querySelector("h2").textContent = F.label(name);
        document.getElementById("other-sections").appendChild(panel);
      }
      // Rows are kept and updated in place, like the table's, so held elements stay current.
      const tbody = panel.querySelector("tbody");
      const labels = new Set(Object.keys(figures || {}));
      if (name === "server") labels.add("commandsPerSecond");
      for (const tr of [...tbody.rows]) {
        if (!labels.has(tr.dataset.label)) tr.remove();
      }
      for (const [label, value] of Object.entries(figures || {})) {
        sectionRow(tbody, label, F.sectionValue(label, value), value);
      }
      if (name === "server") {
        const perSecond = serverRate(figures || {}, elapsed);
        sectionRow(tbody, "commandsPerSecond",
          perSecond === null ? "–" : F.rate(perSecond), perSecond);
      }
      panel.hidden = false;
    }
    for (const panel of document.querySelectorAll("section.status-section")) {
      if (!seen.has(panel.dataset.section)) panel.hidden = true;
    }
  }

  // ---- history and charts ----
  function record(overview, elapsed) {
    const now = overview.time;
    const before = new Map((previous ? previous.caches : []).map(c => [c.name, c]));
    for (const c of overview.caches) {
      if (!history.has(c.name)) {
        history.set(c.name, { color: COLORS[history.size % COLORS.length], points: [] });
      }
      const last = before.get(c.name);
      const reads = last && elapsed > 0
        ? Math.max(0, (c.hits + c.misses - last.hits - last.misses) / elapsed) : null;
      // A cache that does not count its writes has no "puts": no point, not a flat 0.
      const writes = last && elapsed > 0 && typeof c.puts === "number"
        && typeof last.puts === "number" ? Math.max(0, (c.puts - last.puts) / elapsed) : null;
      const memory = c.maximumMemory ? (100 * c.memoryUsed) / c.maximumMemory : null;
      const hit = c.hitRatio === null ? null : 100 * c.hitRatio;
      const h = history.get(c.name);
      h.measuresWrites = typeof c.puts === "number";
      h.points.push({ t: now, hit, memory, reads, writes });
      while (h.points.length && now - h.points[0].t > WINDOW_MILLIS) h.points.shift();
    }
    for (const name of [...history.keys()]) {
      if (!overview.caches.some(c => c.name === name)) history.delete(name);
    }
    const server = overview.sections && overview.sections.server;
    if (server) {
      serverHistory.push({ t: now, commands: serverRate(server, elapsed) });
      while (serverHistory.length && now - serverHistory[0].t > WINDOW_MILLIS) serverHistory.shift();
    } else {
      serverHistory.length = 0;
    }
  }

  function series(field, only) {
    return [...history.entries()].filter(([, h]) => !only || only(h)).map(([label, h]) => ({
      label, color: h.color, points: h.points.map(p => [p.t, p[field]]),
    }));
  }

  /** The charts span what has been seen so far (10 s to 2 min), so a new page fills quickly. */
  function chartWindow(now) {
    let first = now;
    for (const h of history.values()) if (h.points.length) first = Math.min(first, h.points[0].t);
    return Math.min(WINDOW_MILLIS, Math.max(MIN_WINDOW_MILLIS, now - first));
  }

  function renderCharts(now) {
    const common = { now, windowMillis: chartWindow(now) };
    const percent = { ...common, max: 100, format: v => v.toFixed(0) };
    const perSecond = { ...common, minStep: 1, format: F.rate };
    LarderCharts.line(document.getElementById("chart-hit-ratio"), series("hit"), percent);
    LarderCharts.line(document.getElementById("chart-memory"), series("memory"), percent);
    LarderCharts.line(document.getElementById("chart-reads"), series("reads"), perSecond);
    LarderCharts.line(document.getElementById("chart-writes"),
      series("writes", h => h.measuresWrites), perSecond);
    const unmeasured = [...history.entries()].filter(([, h]) => !h.measuresWrites)
      .map(([name]) => name);
    const note = document.getElementById("writes-unmeasured");
    note.hidden = unmeasured.length === 0;
    note.textContent = "not counted by " + unmeasured.join(", ") + ", so not drawn";
    const commands = document.getElementById("commands-figure");
    commands.hidden = serverHistory.length === 0;
    if (!commands.hidden) {
      LarderCharts.line(document.getElementById("chart-commands"), [{ label: "server",
        color: "#1d2433", points: serverHistory.map(p => [p.t, p.commands]) }], perSecond);
    }
    const legend = document.getElementById("legend");
    legend.replaceChildren(...[...history.entries()].map(([name, h]) => {
      const li = document.createElement("li");
      li.textContent = name;
      li.style.setProperty("--swatch", h.color);
      return li;
    }));
  }

  // ---- views ----
  function route() {
    const match = /^#\/cache\/(.+)$/.exec(window.location.hash);
    const cache = match ? decodeURIComponent(match[1]) : null;
    document.getElementById("view-overview").hidden = cache !== null;
    document.getElementById("view-cache").hidden = cache === null;
    LarderBrowser.open(cache);
  }

  // ---- polling ----
  function setStatus(state, text) {
    const status = document.getElementById("status");
    status.dataset.state = state;
    status.textContent = text;
  }

  async function poll() {
    try {
      const response = await LarderApi.request("/api/caches");
      if (!response.ok) throw new Error(await LarderApi.problem(response));
      const overview = await response.json();
      const elapsed = previous ? (overview.time - previous.time) / 1000 : 0;
      renderTable(overview.caches);
      renderSections(overview.sections, elapsed);
      record(overview, elapsed);
      renderCharts(overview.time);
      LarderBrowser.update(overview);
      previous = overview;
      setStatus("ok", overview.caches.length + " cache" + (overview.caches.length === 1 ? "" : "s"));
      const updated = document.getElementById("updated");
      updated.textContent = "updated " + new Date(overview.time).toLocaleTimeString();
      updated.dataset.time = String(overview.time);
    } catch (e) {
      setStatus("error", "cannot reach the API: " + e.message);
    } finally {
      setTimeout(poll, POLL_MILLIS);
    }
  }

  window.addEventListener("hashchange", route);
  route();
  poll();
})();
