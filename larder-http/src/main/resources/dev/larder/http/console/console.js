/*
 * The Larder console: polls /api/caches every second, renders one table row per cache, keeps
 * two minutes of history per cache for the charts, and shows the log and cluster panels only
 * when the API reports those sections. Every cell carries the raw figure it shows in
 * data-value, so tests (and curious users) can compare the page with the API exactly; a figure
 * the API leaves out (the cache does not measure it) has its cell hidden.
 */
"use strict";

(() => {
  const POLL_MILLIS = 1000;
  const WINDOW_MILLIS = 120 * 1000; // history kept, and the widest chart window
  const MIN_WINDOW_MILLIS = 10 * 1000;
  const COLORS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2",
    "#ca8a04", "#db2777"];
  const history = new Map(); // cache name -> {color, points: [{t, hitRatio, memory, reads}]}
  let previous = null; // the last overview, to turn counters into rates

  // ---- formatting (kept in step with ConsoleBrowserTest's expectations) ----
  function bytes(n) {
    if (n === null || n === undefined) return "–";
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let value = n;
    let unit = 0;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return unit === 0 ? n + " B" : value.toFixed(1) + " " + units[unit];
  }

  function percent(ratio) {
    return ratio === null || ratio === undefined ? "–" : (ratio * 100).toFixed(1) + "%";
  }

  function nanos(n) {
    if (!n) return "–";
    if (n < 1e3) return n + " ns";
    if (n < 1e6) return (n / 1e3).toFixed(1) + " µs";
    if (n < 1e9) return (n / 1e6).toFixed(1) + " ms";
    return (n / 1e9).toFixed(2) + " s";
  }

  function rate(n) {
    if (n >= 1e6) return (n / 1e6).toFixed(1) + "M";
    if (n >= 1e3) return (n / 1e3).toFixed(1) + "k";
    return n >= 10 || n === 0 ? n.toFixed(0) : n.toFixed(1);
  }

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
      ? bytes(cache.memoryUsed) + " (no byte bound)"
      : bytes(cache.memoryUsed) + " / " + bytes(cache.maximumMemory);
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
    return l.count === 0 ? "–" : nanos(l.p50Nanos) + " / " + nanos(l.p99Nanos);
  }

  function renderRow(tbody, cache) {
    let row = tbody.querySelector(`tr[data-cache="${CSS.escape(cache.name)}"]`);
    if (!row) {
      row = document.createElement("tr");
      row.dataset.cache = cache.name;
      tbody.appendChild(row);
    }
    cell(row, "name", cache.name, cache.name, "name");
    cell(row, "entries", String(cache.entries), cache.entries, "num");
    memoryCell(row, cache);
    cell(row, "hitRatio", percent(cache.hitRatio), cache.hitRatio, "num");
    for (const op of ["get", "put", "load"]) {
      // An operation the cache does not time is absent from the API: its cell is hidden,
      // not shown as 0 or "–" (which would read as "timed, none recorded").
      const l = cache.latency[op];
      const td = cell(row, op + "Latency", l ? latencyText(l) : "",
        l ? l.p50Nanos + "/" + l.p99Nanos : null, "num");
      td.dataset.measured = String(Boolean(l));
      td.title = l ? "" : "not measured by this cache";
    }
    cell(row, "evictions", String(cache.evictions), cache.evictions, "num");
    cell(row, "expirations", String(cache.expirations), cache.expirations, "num");
    const stats = cell(row, "statistics", null, cache.statistics);
    const badge = child(stats, "span", "badge");
    badge.classList.toggle("off", !cache.statistics);
    badge.textContent = cache.statistics ? "on" : "off";
    badge.title = cache.statistics ? "" : "counts stay 0: build the cache with recordStats()";
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

  // ---- status sections (log, cluster, others) ----
  function renderSections(sections) {
    const seen = new Set();
    for (const [name, figures] of Object.entries(sections || {})) {
      seen.add(name);
      let panel = document.querySelector(`section[data-section="${CSS.escape(name)}"]`);
      if (!panel) {
        panel = document.createElement("section");
        panel.className = "status-section";
        panel.dataset.section = name;
        panel.innerHTML = "<h2></h2><table class=\"kv\"><tbody></tbody></table>";
        panel.querySelector("h2").textContent = name;
        document.getElementById("other-sections").appendChild(panel);
      }
      // Rows are kept and updated in place, like the table's, so held elements stay current.
      const tbody = panel.querySelector("tbody");
      const labels = new Set(Object.keys(figures || {}));
      for (const tr of [...tbody.rows]) {
        if (!labels.has(tr.dataset.label)) tr.remove();
      }
      for (const [label, value] of Object.entries(figures || {})) {
        let tr = tbody.querySelector(`tr[data-label="${CSS.escape(label)}"]`);
        if (!tr) {
          tr = tbody.insertRow();
          tr.dataset.label = label;
          tr.insertCell().textContent = label;
          tr.insertCell().dataset.field = label;
        }
        tr.cells[1].textContent = String(value);
        tbody.appendChild(tr);
      }
      panel.hidden = false;
    }
    for (const panel of document.querySelectorAll("section.status-section")) {
      if (!seen.has(panel.dataset.section)) panel.hidden = true;
    }
  }

  // ---- history and charts ----
  function record(overview) {
    const now = overview.time;
    const before = new Map((previous ? previous.caches : []).map(c => [c.name, c]));
    const elapsed = previous ? (now - previous.time) / 1000 : 0;
    for (const c of overview.caches) {
      if (!history.has(c.name)) {
        history.set(c.name, { color: COLORS[history.size % COLORS.length], points: [] });
      }
      const last = before.get(c.name);
      const reads = last && elapsed > 0
        ? Math.max(0, (c.hits + c.misses - last.hits - last.misses) / elapsed) : null;
      const memory = c.maximumMemory ? (100 * c.memoryUsed) / c.maximumMemory : null;
      const hit = c.hitRatio === null ? null : 100 * c.hitRatio;
      const h = history.get(c.name);
      h.points.push({ t: now, hit, memory, reads });
      while (h.points.length && now - h.points[0].t > WINDOW_MILLIS) h.points.shift();
    }
    for (const name of [...history.keys()]) {
      if (!overview.caches.some(c => c.name === name)) history.delete(name);
    }
    previous = overview;
  }

  function series(field) {
    return [...history.entries()].map(([label, h]) => ({
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
    LarderCharts.line(document.getElementById("chart-hit-ratio"), series("hit"),
      { ...common, max: 100, format: v => v.toFixed(0) });
    LarderCharts.line(document.getElementById("chart-memory"), series("memory"),
      { ...common, max: 100, format: v => v.toFixed(0) });
    LarderCharts.line(document.getElementById("chart-reads"), series("reads"),
      { ...common, format: rate });
    const legend = document.getElementById("legend");
    legend.replaceChildren(...[...history.entries()].map(([name, h]) => {
      const li = document.createElement("li");
      li.textContent = name;
      li.style.setProperty("--swatch", h.color);
      return li;
    }));
  }

  // ---- polling ----
  function setStatus(state, text) {
    const status = document.getElementById("status");
    status.dataset.state = state;
    status.textContent = text;
  }

  async function poll() {
    try {
      const response = await fetch("/api/caches", { cache: "no-store" });
      if (!response.ok) throw new Error("HTTP " + response.status);
      const overview = await response.json();
      renderTable(overview.caches);
      renderSections(overview.sections);
      record(overview);
      renderCharts(overview.time);
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

  poll();
})();
