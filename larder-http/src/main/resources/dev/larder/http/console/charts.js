/*
 * Line charts on a <canvas>, written for the console (no library). A chart draws series of
 * [timeMillis, value] points over a sliding time window: horizontal grid lines with labels on
 * the left, one line per series, a gap where a value is missing (null). The axis has four steps
 * of a round size (1, 2 or 5 times a power of ten, at least 1 for counts), so an idle chart
 * reads 0 to 4 rather than 0, 0.25, 0.5. A chart is as wide as its figure allows, up to its
 * width attribute, so it fits a phone's screen.
 */
"use strict";

const LarderCharts = (() => {
  const PAD = { left: 48, right: 10, top: 10, bottom: 22 };

  const STEPS = 4;

  /** The axis maximum: four steps of 1, 2 or 5 times a power of ten, at least minStep each. */
  function niceMax(max, minStep) {
    const least = minStep === undefined ? 0 : minStep;
    const wanted = Math.max(max > 0 ? max / STEPS : 0, least);
    if (!(wanted > 0)) return STEPS;
    const power = Math.pow(10, Math.floor(Math.log10(wanted)));
    for (const step of [1, 2, 5, 10]) {
      if (step * power >= wanted) return STEPS * step * power;
    }
    return STEPS * 10 * power;
  }

  function prepare(canvas) {
    // Draw at the screen's pixel density so lines stay sharp on high-DPI displays.
    const ratio = window.devicePixelRatio || 1;
    if (!canvas.dataset.maxWidth) {
      canvas.dataset.maxWidth = canvas.getAttribute("width");
      canvas.dataset.height = canvas.getAttribute("height");
    }
    const room = canvas.parentElement ? canvas.parentElement.clientWidth : 0;
    const width = Math.max(160, Math.min(Number(canvas.dataset.maxWidth), room || 1e9));
    const height = Number(canvas.dataset.height);
    const size = width + "x" + height + "@" + ratio;
    if (canvas.dataset.size !== size) {
      canvas.style.width = width + "px";
      canvas.style.height = height + "px";
      canvas.width = width * ratio;
      canvas.height = height * ratio;
      canvas.dataset.size = size;
    }
    const ctx = canvas.getContext("2d");
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    return { ctx, width, height };
  }

  function drawGrid(ctx, box, yMax, format, now, windowMillis) {
    ctx.strokeStyle = "#e3e3df";
    ctx.fillStyle = "#6b7280";
    ctx.font = "11px system-ui, sans-serif";
    ctx.lineWidth = 1;
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    const ticks = [];
    for (let i = 0; i <= STEPS; i++) {
      const value = (yMax * i) / STEPS;
      const y = box.top + box.h - (box.h * i) / STEPS;
      ticks.push(format(value));
      ctx.beginPath();
      ctx.moveTo(box.left, Math.round(y) + 0.5);
      ctx.lineTo(box.left + box.w, Math.round(y) + 0.5);
      ctx.stroke();
      ctx.fillText(format(value), box.left - 6, y);
    }
    return ticks;
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    const seconds = windowMillis / 1000;
    for (let i = 0; i <= 4; i++) {
      const s = (seconds * i) / 4;
      const x = box.left + box.w - (box.w * i) / 4;
      ctx.fillText(i === 0 ? "now" : "-" + Math.round(s) + "s", x, box.top + box.h + 5);
    }
  }

  function drawSeries(ctx, box, series, yMax, now, windowMillis) {
    ctx.lineWidth = 2;
    ctx.lineJoin = "round";
    for (const s of series) {
      ctx.strokeStyle = s.color;
      ctx.beginPath();
      let drawing = false;
      for (const [t, v] of s.points) {
        if (v === null || v === undefined || !isFinite(v) || now - t > windowMillis) {
          drawing = false;
          continue;
        }
        const x = box.left + box.w - (box.w * (now - t)) / windowMillis;
        const y = box.top + box.h - (box.h * Math.min(v, yMax)) / yMax;
        if (drawing) ctx.lineTo(x, y); else ctx.moveTo(x, y);
        drawing = true;
      }
      ctx.stroke();
    }
  }

  /**
   * @param canvas the <canvas>
   * @param series [{label, color, points: [[timeMillis, value|null], ...]}]
   * @param options {max: fixed axis maximum (else from the data), minStep: the smallest axis
   *                 step (1 for counts), format: value => label, now: timeMillis of the right
   *                 edge, windowMillis: width of the window}
   */
  function line(canvas, series, options) {
    const { ctx, width, height } = prepare(canvas);
    const box = {
      left: PAD.left, top: PAD.top,
      w: width - PAD.left - PAD.right, h: height - PAD.top - PAD.bottom,
    };
    let dataMax = 0;
    for (const s of series) {
      for (const [, v] of s.points) if (v !== null && isFinite(v)) dataMax = Math.max(dataMax, v);
    }
    const yMax = options.max !== undefined ? options.max : niceMax(dataMax, options.minStep);
    const ticks = drawGrid(ctx, box, yMax, options.format, options.now, options.windowMillis);
    drawSeries(ctx, box, series, yMax, options.now, options.windowMillis);
    canvas.dataset.series = String(series.length);
    // The axis labels drawn, for tests and for anyone reading the page's DOM.
    canvas.dataset.ticks = ticks.join(",");
  }

  return { line, niceMax };
})();
