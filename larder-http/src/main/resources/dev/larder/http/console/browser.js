/*
 * One cache's page (#/cache/<name>): its figures, the key browser (a SCAN with a pattern over
 * /api/caches/<name>/keys, page by page), an entry's value as text, hex or JSON with its time to
 * live, and the actions that change data: delete a key and clear the cache, each after a
 * confirmation. The server decides whether an action is allowed (password, Host and Origin
 * checks); a refusal is shown with the server's reason.
 */
"use strict";

const LarderBrowser = (() => {
  const F = LarderFormat;
  const PAGE = 50;
  const HEX_LIMIT = 4096;
  let current = null; // the cache shown, or null on the overview
  let cursor = "0";
  let pattern = "*";
  let entry = null; // {key, bytes, ttl}

  const $ = id => document.getElementById(id);
  const base = () => "/api/caches/" + encodeURIComponent(current);

  function message(text, kind) {
    const el = $("action-message");
    el.hidden = !text;
    el.textContent = text || "";
    el.dataset.kind = kind || "info";
  }

  function open(name) {
    current = name;
    entry = null;
    $("entry-panel").hidden = true;
    $("keys").replaceChildren();
    $("keys-status").textContent = "";
    $("more").hidden = true;
    message(null);
    if (name === null) return;
    $("cache-name").textContent = name;
    pattern = "*";
    $("pattern").value = pattern;
    document.title = name + " · Larder console";
    scan(true);
  }

  // ---- figures ----
  function figureRows(cache) {
    const rows = [
      ["entries", F.count(cache.entries), cache.entries],
      ["memory used", F.bytes(cache.memoryUsed), cache.memoryUsed],
      ["byte bound", cache.maximumMemory === null ? "none" : F.bytes(cache.maximumMemory),
        cache.maximumMemory],
      ["entry bound", cache.maximumEntries === null ? "none" : F.count(cache.maximumEntries),
        cache.maximumEntries],
      ["hit ratio", F.percent(cache.hitRatio), cache.hitRatio],
      ["hits", F.count(cache.hits), cache.hits],
      ["misses", F.count(cache.misses), cache.misses],
    ];
    // Counts the cache does not measure are absent from the API and left out here.
    for (const [field, label] of [["puts", "writes"], ["removals", "removals"],
      ["loadSuccesses", "loads"], ["loadFailures", "failed loads"]]) {
      if (typeof cache[field] === "number") rows.push([label, F.count(cache[field]), cache[field]]);
    }
    rows.push(["evictions", F.count(cache.evictions), cache.evictions]);
    rows.push(["expirations", F.count(cache.expirations), cache.expirations]);
    for (const op of ["get", "put", "load"]) {
      const l = cache.latency[op];
      if (l) rows.push([op + " p50 / p99", F.nanos(l.p50Nanos) + " / " + F.nanos(l.p99Nanos),
        l.p50Nanos + "/" + l.p99Nanos]);
    }
    rows.push(["statistics", cache.statistics ? "on" : "off", cache.statistics]);
    return rows;
  }

  function update(overview) {
    if (current === null) return;
    const cache = overview.caches.find(c => c.name === current);
    $("cache-unknown").hidden = Boolean(cache);
    const tbody = $("cache-figures").tBodies[0];
    if (!cache) {
      tbody.replaceChildren();
      return;
    }
    const rows = figureRows(cache);
    const labels = new Set(rows.map(r => r[0]));
    for (const tr of [...tbody.rows]) if (!labels.has(tr.dataset.label)) tr.remove();
    for (const [label, text, value] of rows) {
      let tr = tbody.querySelector(`tr[data-label="${CSS.escape(label)}"]`);
      if (!tr) {
        tr = tbody.insertRow();
        tr.dataset.label = label;
        tr.insertCell().textContent = label;
        tr.insertCell();
      }
      tr.cells[1].textContent = text;
      tr.cells[1].dataset.value = value === null || value === undefined ? "" : String(value);
      tbody.appendChild(tr);
    }
    const browsable = cache.rest !== null;
    $("browser-off").hidden = browsable;
    $("scan-form").hidden = !browsable;
  }

  // ---- the key browser ----
  async function scan(fresh) {
    if (fresh) {
      cursor = "0";
      $("keys").replaceChildren();
    }
    const name = current;
    const query = new URLSearchParams({ match: pattern, cursor, count: String(PAGE) });
    const response = await LarderApi.request(base() + "/keys?" + query);
    if (name !== current) return;
    if (!response.ok) {
      $("keys-status").textContent = "cannot list keys: " + await LarderApi.problem(response);
      $("more").hidden = true;
      return;
    }
    const page = await response.json();
    for (const key of page.keys) {
      const li = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "key";
      button.dataset.key = key;
      button.textContent = key;
      button.addEventListener("click", () => show(key));
      li.appendChild(button);
      $("keys").appendChild(li);
    }
    cursor = page.cursor;
    const shown = $("keys").children.length;
    $("more").hidden = cursor === "0";
    $("keys-status").textContent = F.count(shown) + " key" + (shown === 1 ? "" : "s")
      + " matching " + pattern + (cursor === "0" ? "; scan complete" : "; more may match");
    $("keys-status").dataset.complete = String(cursor === "0");
  }

  // ---- an entry ----
  async function show(key) {
    const response = await LarderApi.request(base() + "/entries/" + encodeURIComponent(key));
    if (!response.ok) {
      message("cannot read " + key + ": " + await LarderApi.problem(response), "error");
      return;
    }
    const ttl = response.headers.get("X-Larder-TTL-Millis");
    entry = { key, bytes: new Uint8Array(await response.arrayBuffer()), ttl };
    message(null);
    $("entry-panel").hidden = false;
    $("entry-key").textContent = key;
    $("entry-ttl").textContent = ttlText(ttl);
    $("entry-ttl").dataset.value = ttl === null ? "" : ttl;
    $("entry-size").textContent = F.bytes(entry.bytes.length);
    render();
  }

  function ttlText(ttl) {
    if (ttl === null) return "time to live: not reported by this cache";
    if (ttl === "-1") return "no expiry";
    return "expires in " + F.millis(Number(ttl));
  }

  function render() {
    if (!entry) return;
    const format = document.querySelector("input[name=format]:checked").value;
    const pre = $("entry-value");
    pre.dataset.format = format;
    const text = new TextDecoder("utf-8").decode(entry.bytes);
    if (format === "hex") {
      pre.textContent = hex(entry.bytes);
    } else if (format === "json") {
      try {
        pre.textContent = JSON.stringify(JSON.parse(text), null, 2);
      } catch (e) {
        pre.textContent = "not JSON: " + e.message;
      }
    } else {
      pre.textContent = text;
    }
  }

  /** 16 bytes a line: offset, bytes in hex, and the printable ASCII ones. */
  function hex(bytes) {
    const lines = [];
    const shown = Math.min(bytes.length, HEX_LIMIT);
    for (let i = 0; i < shown; i += 16) {
      const row = bytes.subarray(i, Math.min(i + 16, shown));
      const hexes = [...row].map(b => b.toString(16).padStart(2, "0")).join(" ");
      const ascii = [...row].map(b => (b >= 32 && b < 127 ? String.fromCharCode(b) : ".")).join("");
      lines.push(i.toString(16).padStart(6, "0") + "  " + hexes.padEnd(47) + "  " + ascii);
    }
    if (bytes.length > shown) lines.push("… " + F.count(bytes.length - shown) + " more bytes");
    return lines.join("\n");
  }

  // ---- actions ----
  async function deleteKey() {
    if (!entry) return;
    const key = entry.key;
    if (!window.confirm("Delete key \"" + key + "\" from cache " + current + "?")) return;
    const response = await LarderApi.request(base() + "/entries/" + encodeURIComponent(key),
      { method: "DELETE" });
    if (!response.ok) {
      message("not deleted: " + await LarderApi.problem(response), "error");
      return;
    }
    $("keys").querySelector(`button[data-key="${CSS.escape(key)}"]`)?.parentElement.remove();
    $("entry-panel").hidden = true;
    entry = null;
    message("deleted " + key, "ok");
  }

  async function clearCache() {
    if (!window.confirm("Remove every entry of cache " + current + "? This cannot be undone.")) {
      return;
    }
    const response = await LarderApi.request(base() + "/entries", { method: "DELETE" });
    if (!response.ok) {
      message("not cleared: " + await LarderApi.problem(response), "error");
      return;
    }
    $("entry-panel").hidden = true;
    entry = null;
    message("cleared " + current, "ok");
    scan(true);
  }

  $("scan-form").addEventListener("submit", event => {
    event.preventDefault();
    pattern = $("pattern").value || "*";
    scan(true);
  });
  $("more").addEventListener("click", () => scan(false));
  $("delete-key").addEventListener("click", deleteKey);
  $("clear-cache").addEventListener("click", clearCache);
  for (const radio of document.querySelectorAll("input[name=format]")) {
    radio.addEventListener("change", render);
  }

  return { open, update };
})();
