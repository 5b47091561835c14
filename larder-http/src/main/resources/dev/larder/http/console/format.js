/*
 * How the console writes figures and labels: counts with the reader's digit grouping (97,423),
 * bytes in binary units, latencies in the unit that fits, durations in days, hours and minutes,
 * and figure names as words ("commands processed", not commandsProcessed). Kept in step with
 * ConsoleBrowserTest and ConsoleActionsBrowserTest.
 */
"use strict";

const LarderFormat = (() => {
  const grouping = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });

  function count(n) {
    return n === null || n === undefined ? "–" : grouping.format(n);
  }

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

  /** A rate or an axis tick: 0, 7, 12, 1.5k, 2M; no trailing ".0". */
  function rate(n) {
    const short = (v, suffix) => (Number.isInteger(v) ? String(v) : v.toFixed(1)) + suffix;
    if (n >= 1e6) return short(Math.round(n / 1e5) / 10, "M");
    if (n >= 1e3) return short(Math.round(n / 1e2) / 10, "k");
    if (n >= 10 || Number.isInteger(n)) return n.toFixed(0);
    return n.toFixed(1);
  }

  function duration(seconds) {
    const s = Math.floor(seconds);
    if (s < 60) return s + " s";
    const m = Math.floor(s / 60);
    if (m < 60) return m + " min " + (s % 60) + " s";
    const h = Math.floor(m / 60);
    if (h < 24) return h + " h " + (m % 60) + " min";
    return Math.floor(h / 24) + " d " + (h % 24) + " h";
  }

  function millis(ms) {
    if (ms < 1000) return ms + " ms";
    return duration(ms / 1000);
  }

  const LABELS = {
    respPort: "RESP port",
    memcachePort: "memcached port",
    httpPort: "HTTP port",
    commandsProcessed: "commands processed",
    maxmemory: "maxmemory",
    maxmemoryPolicy: "maxmemory policy",
    memoryUsed: "memory used",
    uptimeSeconds: "uptime",
    lastSequence: "last sequence",
    lastCheckpoint: "last checkpoint",
    memberCount: "members (count)",
    viewId: "view id",
    localEntries: "local entries",
    fsync: "fsync",
  };

  /** A figure's name as words: a known label, else camelCase split ("bytesWritten" → "bytes written"). */
  function label(key) {
    if (LABELS[key]) return LABELS[key];
    return key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  }

  /** A section's value as shown: numbers grouped, bytes and durations in units, ports "off". */
  function sectionValue(key, value) {
    if (typeof value !== "number") return String(value);
    if (/Port$/.test(key) && value <= 0) return "off";
    if (/Port$/.test(key)) return String(value);
    if (key === "uptimeSeconds") return duration(value);
    if (/(^memory|Memory|Bytes$|^maxmemory$)/.test(key)) return bytes(value);
    return count(value);
  }

  return { count, bytes, percent, nanos, rate, duration, millis, label, sectionValue };
})();
