// Block Kit to DOM, the way Slack's client draws it (closely enough to judge a layout).
//
// renderBlocks(blocks, ctx) returns a container element. ctx carries:
//   users, channels     id -> {name} maps for mentions and the user/channel selects
//   people, rooms       lists of {id, name, real_name} for users_select / channels_select
//   surface             "message" | "modal" | "home"
//   act(element, block, value)     an interactive element was used (a promise)
//   confirm(dialog)                Block Kit confirm object -> promise of true/false
//   fileUrl(slackFile)             where the browser can fetch a file of the stand-in
//   inputs                         (modals) array the input blocks register their readers in
//   errors                         (modals) block_id -> error text from response_action
// Everything is built with createElement/textContent: nothing the app sends is parsed as HTML.

import { el } from "./dom.js";
import { emojiFor, mrkdwn, plainText, textObject } from "./mrkdwn.js";
import { renderDataViz } from "./dataviz.js";
import { renderTable } from "./table.js";

function textOf(obj) {
  if (!obj) return "";
  return typeof obj === "string" ? obj : String(obj.text ?? "");
}

function unsupported(kind, what) {
  const node = el("div", "unsupported", `Unsupported ${kind}: ${what}`);
  node.title = "The console does not draw this yet; Slack may.";
  return node;
}

function allOptions(element) {
  const found = [...(element.options || [])];
  for (const group of element.option_groups || []) found.push(...(group.options || []));
  return found;
}

function imageNode(source, alt, className, ctx) {
  const img = el("img", className);
  img.alt = alt || "";
  img.loading = "lazy";
  let url = source.image_url || "";
  if (source.slack_file) url = ctx.fileUrl(source.slack_file) || "";
  if (url && /^(https?:|\/console\/)/.test(url)) img.src = url;
  img.addEventListener("error", () => img.classList.add("broken"));
  return img;
}

// ---------------------------------------------------------------- interactive elements

function optionSelect(element, options, { multiple = false, placeholder } = {}) {
  const select = el("select", "select");
  select.multiple = multiple;
  if (!multiple) {
    const blank = el("option", "", placeholder || textOf(element.placeholder) || "Select an item");
    blank.value = "";
    select.appendChild(blank);
  }
  const initial = new Set(
    [element.initial_option, ...(element.initial_options || [])]
      .filter(Boolean)
      .map((o) => o.value),
  );
  const add = (parent, option) => {
    const node = el("option", "", textOf(option.text));
    node.value = option.value;
    node.selected = initial.has(option.value);
    parent.appendChild(node);
  };
  if (options) {
    for (const option of options) add(select, option);
  } else if (element.option_groups) {
    for (const group of element.option_groups) {
      const optgroup = el("optgroup");
      optgroup.label = textOf(group.label);
      for (const option of group.options || []) add(optgroup, option);
      select.appendChild(optgroup);
    }
  } else {
    for (const option of element.options || []) add(select, option);
  }
  return select;
}

function directorySelect(element, items, initial, multiple, prefix) {
  const select = el("select", "select");
  select.multiple = multiple;
  if (!multiple) {
    const blank = el("option", "", textOf(element.placeholder) || "Select");
    blank.value = "";
    select.appendChild(blank);
  }
  const chosen = new Set([].concat(initial || []));
  for (const item of items) {
    const node = el("option", "", prefix + item.name + (item.real_name ? ` (${item.real_name})` : ""));
    node.value = item.id;
    node.selected = chosen.has(item.id);
    select.appendChild(node);
  }
  return select;
}

function selectedValues(select) {
  return [...select.selectedOptions].map((o) => o.value).filter((v) => v !== "");
}

function overflowMenu(element, block, ctx) {
  const wrap = el("span", "overflow");
  const button = el("button", "btn overflow-button", "⋯");
  button.type = "button";
  button.setAttribute("aria-label", "More actions");
  button.dataset.actionId = element.action_id || "";
  const menu = el("div", "overflow-menu");
  menu.hidden = true;
  for (const option of element.options || []) {
    const item = el("button", "overflow-item", textOf(option.text));
    item.type = "button";
    item.addEventListener("click", async (event) => {
      event.stopPropagation();
      menu.hidden = true;
      if (option.url) window.open(option.url, "_blank", "noopener");
      if (element.confirm && !(await ctx.confirm(element.confirm))) return;
      await ctx.act(element, block, option.value);
    });
    menu.appendChild(item);
  }
  button.addEventListener("click", (event) => {
    event.stopPropagation();
    const open = menu.hidden;
    document.querySelectorAll(".overflow-menu").forEach((m) => (m.hidden = true));
    menu.hidden = !open;
  });
  wrap.append(button, menu);
  return wrap;
}

function choiceList(element, kind) {
  const box = el("div", kind === "checkbox" ? "checkboxes" : "radios");
  const initial = new Set(
    [element.initial_option, ...(element.initial_options || [])]
      .filter(Boolean)
      .map((o) => o.value),
  );
  const name = `${kind}-${element.action_id}-${Math.random().toString(36).slice(2)}`;
  for (const option of element.options || []) {
    const label = el("label", "choice");
    const input = el("input");
    input.type = kind;
    input.name = name;
    input.value = option.value;
    input.checked = initial.has(option.value);
    const text = el("span", "choice-text");
    text.appendChild(textObject(option.text, {}));
    label.append(input, text);
    if (option.description) {
      const description = el("div", "choice-description");
      description.appendChild(textObject(option.description, {}));
      label.appendChild(description);
    }
    box.appendChild(label);
  }
  return box;
}

function checkedValues(box) {
  return [...box.querySelectorAll("input:checked")].map((i) => i.value);
}

// An element and, for inputs, a function that reads what the person entered.
export function renderElement(element, block, ctx, inInput = false) {
  const kind = element.type;
  const fire = inInput
    ? (value) => (block.dispatch_action ? ctx.act(element, block, value) : null)
    : (value) => ctx.act(element, block, value);
  let node;
  let read = () => null;
  switch (kind) {
    case "button": {
      node = el("button", "btn" + (element.style ? " " + element.style : ""));
      node.type = "button";
      node.appendChild(plainText(element.text));
      node.dataset.actionId = element.action_id || "";
      node.addEventListener("click", async () => {
        if (element.url) window.open(element.url, "_blank", "noopener");
        if (element.confirm && !(await ctx.confirm(element.confirm))) return;
        node.disabled = true;
        try {
          await ctx.act(element, block, element.value);
        } finally {
          node.disabled = false;
        }
      });
      break;
    }
    case "static_select":
    case "external_select": {
      node = optionSelect(element);
      read = () => node.value || null;
      node.addEventListener("change", () => node.value && fire(node.value));
      break;
    }
    case "multi_static_select":
    case "multi_external_select": {
      node = optionSelect(element, null, { multiple: true });
      read = () => selectedValues(node);
      node.addEventListener("change", () => fire(selectedValues(node)));
      break;
    }
    case "users_select":
    case "multi_users_select": {
      const multiple = kind.startsWith("multi_");
      node = directorySelect(
        element, ctx.people || [], element.initial_user || element.initial_users, multiple, "@",
      );
      read = () => (multiple ? selectedValues(node) : node.value || null);
      node.addEventListener("change", () => fire(read()));
      break;
    }
    case "conversations_select":
    case "channels_select":
    case "multi_conversations_select":
    case "multi_channels_select": {
      const multiple = kind.startsWith("multi_");
      const initial =
        element.initial_conversation || element.initial_channel ||
        element.initial_conversations || element.initial_channels;
      node = directorySelect(element, ctx.rooms || [], initial, multiple, "#");
      read = () => (multiple ? selectedValues(node) : node.value || null);
      node.addEventListener("change", () => fire(read()));
      break;
    }
    case "overflow": {
      node = overflowMenu(element, block, ctx);
      break;
    }
    case "datepicker":
    case "timepicker": {
      const unit = kind === "datepicker" ? "date" : "time";
      node = el("input", kind);
      node.type = unit;
      if (element[`initial_${unit}`]) node.value = element[`initial_${unit}`];
      read = () => node.value || null;
      node.addEventListener("change", () => node.value && fire(node.value));
      break;
    }
    case "checkboxes": {
      node = choiceList(element, "checkbox");
      read = () => checkedValues(node);
      node.addEventListener("change", () => fire(checkedValues(node)));
      break;
    }
    case "radio_buttons": {
      node = choiceList(element, "radio");
      read = () => checkedValues(node)[0] || null;
      node.addEventListener("change", () => fire(read()));
      break;
    }
    case "plain_text_input":
    case "url_text_input":
    case "email_text_input":
    case "number_input": {
      const multiline = kind === "plain_text_input" && element.multiline;
      node = el(multiline ? "textarea" : "input", "text-input");
      if (!multiline) {
        node.type =
          kind === "url_text_input" ? "url" : kind === "email_text_input" ? "email"
          : kind === "number_input" ? "number" : "text";
      }
      if (kind === "number_input") {
        node.step = element.is_decimal_allowed ? "any" : "1";
        if (element.min_value !== undefined) node.min = element.min_value;
        if (element.max_value !== undefined) node.max = element.max_value;
      }
      if (element.placeholder) node.placeholder = textOf(element.placeholder);
      if (element.max_length) node.maxLength = element.max_length;
      if (element.initial_value !== undefined) node.value = element.initial_value;
      read = () => (node.value === "" ? null : node.value);
      break;
    }
    case "image": {
      node = imageNode(element, element.alt_text, "element-image", ctx);
      break;
    }
    default:
      node = unsupported("element", kind);
  }
  if (element.action_id && node.dataset) node.dataset.actionId = element.action_id;
  return { node, read };
}

// ---------------------------------------------------------------- blocks

function section(block, ctx) {
  const node = el("div", "section");
  const main = el("div", "section-main");
  if (block.text) {
    const text = el("div", "section-text");
    text.appendChild(textObject(block.text, ctx));
    main.appendChild(text);
  }
  if (block.fields && block.fields.length) {
    const grid = el("div", "fields");
    for (const field of block.fields) {
      const cell = el("div", "field");
      cell.appendChild(textObject(field, ctx));
      grid.appendChild(cell);
    }
    main.appendChild(grid);
  }
  node.appendChild(main);
  if (block.accessory) {
    const side = el("div", "accessory");
    if (block.accessory.type === "image") {
      side.appendChild(imageNode(block.accessory, block.accessory.alt_text, "accessory-image", ctx));
    } else {
      side.appendChild(renderElement(block.accessory, block, ctx).node);
    }
    node.appendChild(side);
  }
  return node;
}

function context(block, ctx) {
  const node = el("div", "context");
  for (const item of block.elements || []) {
    if (item.type === "image") {
      node.appendChild(imageNode(item, item.alt_text, "context-image", ctx));
    } else if (item.type === "mrkdwn" || item.type === "plain_text") {
      const span = el("span", "context-text");
      span.appendChild(textObject(item, ctx));
      node.appendChild(span);
    } else {
      node.appendChild(unsupported("element", item.type));
    }
  }
  return node;
}

function image(block, ctx) {
  const node = el("figure", "image-block");
  if (block.title) node.appendChild(el("figcaption", "", textOf(block.title)));
  node.appendChild(imageNode(block, block.alt_text, "block-image", ctx));
  return node;
}

function actions(block, ctx) {
  const node = el("div", "actions");
  for (const element of block.elements || []) {
    node.appendChild(renderElement(element, block, ctx).node);
  }
  return node;
}

function input(block, ctx) {
  const node = el("div", "input-block");
  const label = el("label", "input-label");
  label.appendChild(plainText(block.label));
  if (block.optional) label.appendChild(el("span", "optional", " (optional)"));
  node.appendChild(label);
  const element = block.element || {};
  const { node: field, read } = renderElement(element, block, ctx, true);
  node.appendChild(field);
  if (block.hint) {
    const hint = el("div", "hint");
    hint.appendChild(plainText(block.hint));
    node.appendChild(hint);
  }
  const error = el("div", "field-error");
  error.hidden = true;
  node.appendChild(error);
  const problem = ctx.errors && ctx.errors[block.block_id];
  if (problem) {
    error.textContent = problem;
    error.hidden = false;
    node.classList.add("has-error");
  }
  if (ctx.inputs) {
    ctx.inputs.push({
      block_id: block.block_id,
      action_id: element.action_id,
      optional: !!block.optional,
      read,
      showError(text) {
        error.textContent = text || "";
        error.hidden = !text;
        node.classList.toggle("has-error", !!text);
      },
    });
  }
  return node;
}

function richText(block, ctx) {
  const node = el("div", "rich-text");
  const inlineInto = (parent, items) => {
    for (const item of items || []) {
      let piece;
      if (item.type === "text") piece = document.createTextNode(item.text || "");
      else if (item.type === "link") {
        piece = el("a", "link", item.text || item.url);
        if (/^https?:/.test(item.url || "")) piece.href = item.url;
        piece.target = "_blank";
        piece.rel = "noopener noreferrer";
      } else if (item.type === "user") {
        piece = el("span", "mention", "@" + ((ctx.users[item.user_id] || {}).name || item.user_id));
      } else if (item.type === "channel") {
        const known = ctx.channels[item.channel_id] || {};
        piece = el("span", "mention channel", "#" + (known.name || item.channel_id));
      } else if (item.type === "emoji") {
        // Slack sends the name and, usually, the code points ("1f3f3-fe0f-200d-1f308").
        const drawn = item.unicode
          ? String.fromCodePoint(...String(item.unicode).split("-").map((hex) => parseInt(hex, 16)))
          : emojiFor(item.name);
        piece = document.createTextNode(drawn ?? `:${item.name}:`);
      } else piece = document.createTextNode("");
      const style = item.style || {};
      let wrapped = piece;
      if (style.code) { const c = el("code"); c.appendChild(wrapped); wrapped = c; }
      if (style.bold) { const b = el("strong"); b.appendChild(wrapped); wrapped = b; }
      if (style.italic) { const i = el("em"); i.appendChild(wrapped); wrapped = i; }
      if (style.strike) { const s = el("s"); s.appendChild(wrapped); wrapped = s; }
      parent.appendChild(wrapped);
    }
  };
  for (const part of block.elements || []) {
    if (part.type === "rich_text_section") {
      const p = el("div");
      inlineInto(p, part.elements);
      node.appendChild(p);
    } else if (part.type === "rich_text_preformatted") {
      const pre = el("pre");
      inlineInto(pre, part.elements);
      node.appendChild(pre);
    } else if (part.type === "rich_text_quote") {
      const quote = el("blockquote");
      inlineInto(quote, part.elements);
      node.appendChild(quote);
    } else if (part.type === "rich_text_list") {
      const list = el(part.style === "ordered" ? "ol" : "ul");
      for (const item of part.elements || []) {
        const li = el("li");
        inlineInto(li, item.elements);
        list.appendChild(li);
      }
      node.appendChild(list);
    } else {
      node.appendChild(unsupported("element", part.type));
    }
  }
  return node;
}

const RENDERERS = {
  header: (block) => {
    const node = el("div", "header-block");
    node.appendChild(plainText(block.text));
    return node;
  },
  section,
  context,
  divider: () => el("hr", "divider"),
  image,
  actions,
  input,
  rich_text: richText,
  table: (block, ctx) => renderTable(block, (cell) => richText(cell, ctx)),
  data_visualization: (block) => renderDataViz(block),
};

export function renderBlocks(blocks, ctx) {
  const root = el("div", "blocks");
  for (const block of blocks || []) {
    const draw = RENDERERS[block.type];
    let node;
    try {
      node = draw ? draw(block, ctx) : unsupported("block", block.type);
    } catch (error) {
      node = unsupported("block", `${block.type} (${error.message})`);
    }
    node.classList.add("block");
    node.dataset.type = block.type;
    if (block.block_id) node.dataset.blockId = block.block_id;
    root.appendChild(node);
  }
  return root;
}

// Files shared in a message (a digest's chart, a CSV of rejected leads): images inline.
export function renderFiles(files, ctx) {
  const box = el("div", "files");
  for (const file of files || []) {
    const url = file.console_url || ctx.fileUrl({ id: file.id });
    if (String(file.mimetype || "").startsWith("image/")) {
      const figure = el("figure", "file-image");
      figure.appendChild(el("figcaption", "", file.title || file.name || "image"));
      const img = el("img", "shared-image");
      img.alt = file.alt_txt || file.title || file.name || "";
      img.src = url;
      figure.appendChild(img);
      box.appendChild(figure);
    } else {
      const link = el("a", "file-chip", `📄 ${file.title || file.name} (${file.pretty_type || ""})`);
      link.href = url;
      link.target = "_blank";
      link.rel = "noopener";
      box.appendChild(link);
    }
  }
  return box;
}

export { mrkdwn };
