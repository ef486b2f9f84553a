// Slack's data_visualization block, drawn as Slack's client shows it: the title above, the
// chart in SVG (grouped bars, lines, areas layered first at the back, or a pie), a legend
// with a colour per series (per slice for a pie), and axis titles from axis_config.
//
// renderDataViz(block) returns the element. Every label is set with textContent: nothing
// the app sends becomes markup.

import { el } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 560;
const HEIGHT = 260;
const LEFT = 52;
const RIGHT = 12;
const TOP = 12;
const BOTTOM = 44;
const COLOURS = ["#2eb67d", "#e01e5a", "#36c5f0", "#ecb22e", "#7c3aed", "#1d1c1d"];

function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

function text(x, y, words, attrs = {}) {
  const node = svg("text", { x, y, ...attrs });
  node.textContent = String(words);
  return node;
}

// 1, 2 or 5 times a power of ten, about five ticks, from the lowest value (0 unless
// some are negative) to the highest.
function scale(values) {
  const low = Math.min(0, ...values);
  const high = Math.max(0, ...values);
  const rough = (high - low || 1) / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) || rough;
  return { low: Math.floor(low / step) * step, high: Math.ceil(high / step) * step || step, step };
}

function legend(names) {
  const box = el("div", "dataviz-legend");
  names.forEach((name, i) => {
    const item = el("span", "dataviz-key");
    const swatch = el("span", "dataviz-swatch");
    swatch.style.background = COLOURS[i % COLOURS.length];
    item.appendChild(swatch);
    item.appendChild(el("span", "", name));
    box.appendChild(item);
  });
  return box;
}

function pie(chart) {
  const segments = chart.segments || [];
  const total = segments.reduce((sum, s) => sum + Number(s.value), 0);
  const drawing = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "dataviz-svg" });
  const cx = WIDTH / 2;
  const cy = HEIGHT / 2;
  const r = HEIGHT / 2 - 12;
  let angle = -Math.PI / 2;
  segments.forEach((segment, i) => {
    const sweep = (2 * Math.PI * Number(segment.value)) / total;
    const colour = COLOURS[i % COLOURS.length];
    let shape;
    if (segments.length === 1) {
      shape = svg("circle", { cx, cy, r, fill: colour });
    } else {
      const [x0, y0] = [cx + r * Math.cos(angle), cy + r * Math.sin(angle)];
      const [x1, y1] = [cx + r * Math.cos(angle + sweep), cy + r * Math.sin(angle + sweep)];
      const large = sweep > Math.PI ? 1 : 0;
      shape = svg("path", {
        d: `M ${cx} ${cy} L ${x0} ${y0} A ${r} ${r} 0 ${large} 1 ${x1} ${y1} Z`,
        fill: colour,
        stroke: "#fff",
      });
    }
    shape.classList.add("dataviz-segment");
    const tip = svg("title");
    tip.textContent = `${segment.label}: ${segment.value} (${Math.round((100 * segment.value) / total)}%)`;
    shape.appendChild(tip);
    drawing.appendChild(shape);
    angle += sweep;
  });
  return { drawing, names: segments.map((s) => s.label) };
}

function cartesian(chart) {
  const axis = chart.axis_config || {};
  const categories = axis.categories || [];
  const series = chart.series || [];
  const at = series.map((s) => new Map((s.data || []).map((p) => [p.label, Number(p.value)])));
  const values = at.flatMap((m) => [...m.values()]);
  const { low, high, step } = scale(values);
  const drawing = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "dataviz-svg" });
  const plotW = WIDTH - LEFT - RIGHT;
  const plotH = HEIGHT - TOP - BOTTOM;
  const y = (v) => TOP + plotH - ((v - low) / (high - low)) * plotH;
  const slot = plotW / Math.max(1, categories.length);
  const x = (i) => LEFT + slot * i + slot / 2;
  for (let tick = low; tick <= high + step / 2; tick += step) {
    drawing.appendChild(svg("line", { x1: LEFT, x2: WIDTH - RIGHT, y1: y(tick), y2: y(tick), class: "dataviz-grid" }));
    drawing.appendChild(text(LEFT - 6, y(tick) + 4, Number(tick.toFixed(6)).toLocaleString(), { "text-anchor": "end", class: "dataviz-tick" }));
  }
  const every = Math.max(1, Math.ceil(40 / slot));
  categories.forEach((category, i) => {
    if (i % every === 0) {
      drawing.appendChild(text(x(i), TOP + plotH + 16, category, { "text-anchor": "middle", class: "dataviz-tick" }));
    }
  });
  if (axis.x_label) {
    drawing.appendChild(text(LEFT + plotW / 2, HEIGHT - 6, axis.x_label, { "text-anchor": "middle", class: "dataviz-axis-title" }));
  }
  if (axis.y_label) {
    const title = text(0, 0, axis.y_label, { "text-anchor": "middle", class: "dataviz-axis-title" });
    title.setAttribute("transform", `translate(12 ${TOP + plotH / 2}) rotate(-90)`);
    drawing.appendChild(title);
  }
  const zero = y(Math.max(low, 0));
  if (chart.type === "bar") {
    const width = (slot * 0.8) / Math.max(1, series.length);
    series.forEach((s, k) => {
      categories.forEach((category, i) => {
        const value = at[k].get(category) ?? 0;
        const left = LEFT + slot * i + slot * 0.1 + width * k;
        const top = Math.min(y(value), zero);
        const bar = svg("rect", {
          x: left,
          y: top,
          width: Math.max(1, width - 1),
          height: Math.max(value ? 1 : 0, Math.abs(zero - y(value))),
          fill: COLOURS[k % COLOURS.length],
          class: "dataviz-bar",
        });
        const tip = svg("title");
        tip.textContent = `${s.name}, ${category}: ${value}`;
        bar.appendChild(tip);
        drawing.appendChild(bar);
      });
    });
  } else {
    series.forEach((s, k) => {
      const points = categories.map((category, i) => [x(i), y(at[k].get(category) ?? 0)]);
      const colour = COLOURS[k % COLOURS.length];
      const line = points.map(([px, py]) => `${px},${py}`).join(" ");
      if (chart.type === "area" && points.length) {
        const outline = `${points[0][0]},${zero} ${line} ${points[points.length - 1][0]},${zero}`;
        drawing.appendChild(svg("polygon", { points: outline, fill: colour, "fill-opacity": 0.45, class: "dataviz-area" }));
      }
      drawing.appendChild(svg("polyline", { points: line, fill: "none", stroke: colour, "stroke-width": 2, class: "dataviz-line" }));
    });
  }
  drawing.appendChild(svg("line", { x1: LEFT, x2: WIDTH - RIGHT, y1: zero, y2: zero, class: "dataviz-axis" }));
  return { drawing, names: series.map((s) => s.name) };
}

export function renderDataViz(block) {
  const chart = block.chart || {};
  const node = el("figure", "dataviz-block");
  node.dataset.chart = chart.type || "";
  node.appendChild(el("figcaption", "dataviz-title", block.title || ""));
  const { drawing, names } = chart.type === "pie" ? pie(chart) : cartesian(chart);
  drawing.setAttribute("role", "img");
  drawing.setAttribute("aria-label", `${chart.type} chart: ${block.title || ""}`);
  node.appendChild(drawing);
  node.appendChild(legend(names));
  return node;
}
