// Slack's table block: rows of raw_text or rich_text cells, column_settings for alignment
// and wrapping. The first row is drawn as the header, as Slack's client does.
//
// renderTable(block, drawRichText) returns the element; drawRichText(cell) draws a
// rich_text cell (blocks.js passes its own rich text renderer).

import { el } from "./dom.js";

export function renderTable(block, drawRichText) {
  const wrap = el("div", "table-block");
  const table = el("table");
  const settings = block.column_settings || [];
  (block.rows || []).forEach((row, r) => {
    const tr = el("tr");
    (row || []).forEach((cell, c) => {
      const td = el(r === 0 ? "th" : "td");
      const setting = settings[c] || {};
      if (["left", "center", "right"].includes(setting.align)) td.style.textAlign = setting.align;
      if (setting.is_wrapped) td.classList.add("wrapped");
      if (cell && cell.type === "raw_text") td.textContent = String(cell.text ?? "");
      else if (cell && cell.type === "rich_text") td.appendChild(drawRichText(cell));
      else td.appendChild(el("span", "unsupported", `Unsupported cell: ${cell && cell.type}`));
      tr.appendChild(td);
    });
    table.appendChild(tr);
  });
  wrap.appendChild(table);
  return wrap;
}
