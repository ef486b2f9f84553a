// Slack mrkdwn to DOM nodes, safely: every piece of text becomes a text node, never HTML.
//
// Order matters and follows Slack: code blocks and inline code are taken literally; the
// angle-bracket tokens (<url|text>, <@U1>, <#C1|name>, <!here>, <!date^...|fallback>) are
// set aside before bold/italic/strike are looked for, so an underscore in a URL never
// starts italics; the three entities Slack escapes (&amp; &lt; &gt;) are shown as the
// characters they stand for, at the very end.

import { el } from "./dom.js";

// Slack's emoji shortcodes (:white_check_mark:, :1234:, ...) and the characters they stand
// for: the whole iamcal/emoji-data table Slack names its emoji after, written to
// emoji.json by scripts/emoji_table.py, never a hand-kept list.
const EMOJI = (await (await fetch(new URL("emoji.json", import.meta.url))).json()).emoji;

const TOKEN_OPEN = "\uE000";
const TOKEN_CLOSE = "\uE001";
const SAFE_SCHEMES = /^(https?:|mailto:|tel:)/i;

export function decodeEntities(text) {
  return String(text).replace(/&(amp|lt|gt);/g, (_, name) =>
    name === "amp" ? "&" : name === "lt" ? "<" : ">");
}

// The character for one shortcode's name (without colons), or undefined.
export function emojiFor(name) {
  return Object.hasOwn(EMOJI, name) ? EMOJI[name] : undefined;
}

export function emojify(text) {
  return String(text).replace(/:([a-z0-9_+-]+):/g, (whole, name) => emojiFor(name) ?? whole);
}

// A plain_text object: shown literally (emoji names turned into emoji when asked).
export function plainText(obj) {
  if (!obj) return document.createTextNode("");
  const text = typeof obj === "string" ? obj : String(obj.text ?? "");
  const shown = typeof obj === "object" && obj.emoji === false ? text : emojify(text);
  return document.createTextNode(shown);
}

export function textObject(obj, ctx) {
  if (!obj) return document.createTextNode("");
  if (obj.type === "mrkdwn") return mrkdwn(obj.text ?? "", ctx);
  return plainText(obj);
}

function tokenNode(raw, ctx) {
  const users = (ctx && ctx.users) || {};
  const channels = (ctx && ctx.channels) || {};
  const [target, label] = splitOnce(raw, "|");
  const sigil = target.charAt(0);
  if (sigil === "@" || sigil === "#") {
    const [key, className, directory] =
      sigil === "@" ? ["user", "mention", users] : ["channel", "mention channel", channels];
    const id = target.slice(1);
    const known = directory[id];
    const name = label || (known ? known.name : id);
    const node = el("span", className, sigil + decodeEntities(name));
    node.dataset[key] = id;
    return node;
  }
  if (target.startsWith("!")) {
    const special = target.slice(1);
    if (special.startsWith("date^")) {
      return el("span", "date", decodeEntities(label || formatDate(special)));
    }
    if (special.startsWith("subteam^")) {
      return el("span", "mention", decodeEntities(label || "@group"));
    }
    return el("span", "mention broadcast", "@" + decodeEntities(label || special));
  }
  const href = decodeEntities(target);
  const text = decodeEntities(label || target);
  if (!SAFE_SCHEMES.test(href)) return document.createTextNode(text);
  const link = el("a", "link", text);
  link.href = href;
  link.target = "_blank";
  link.rel = "noopener noreferrer";
  return link;
}

function formatDate(special) {
  const parts = special.split("^");
  const seconds = Number(parts[1]);
  if (!Number.isFinite(seconds)) return special;
  return new Date(seconds * 1000).toLocaleString();
}

function splitOnce(text, sep) {
  const at = text.indexOf(sep);
  return at < 0 ? [text, ""] : [text.slice(0, at), text.slice(at + 1)];
}

// Text with placeholders for tokens -> nodes (tokens expanded, entities decoded, emoji).
function expand(text, tokens, ctx, parent) {
  const pattern = new RegExp(TOKEN_OPEN + "(\\d+)" + TOKEN_CLOSE, "g");
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) {
      parent.appendChild(document.createTextNode(emojify(decodeEntities(text.slice(last, match.index)))));
    }
    parent.appendChild(tokenNode(tokens[Number(match[1])], ctx));
    last = match.index + match[0].length;
  }
  if (last < text.length) {
    parent.appendChild(document.createTextNode(emojify(decodeEntities(text.slice(last)))));
  }
}

const STYLES = [
  ["*", "strong"],
  ["_", "em"],
  ["~", "s"],
];

// Bold, italic and strike: a marker at a word boundary, closed by the same marker before
// a word boundary on the same line. Nested styles are handled by recursion.
function styled(text, tokens, ctx, parent) {
  let best = null;
  for (const [mark, tag] of STYLES) {
    const escaped = "\\" + mark;
    const re = new RegExp(
      "(^|[^\\w" + escaped + "])" + escaped + "([^" + escaped + "\\n]*?[^\\s" + escaped + "])" +
        escaped + "(?=$|[^\\w" + escaped + "])",
    );
    const match = re.exec(text);
    if (match && (best === null || match.index + match[1].length < best.start)) {
      best = {
        start: match.index + match[1].length,
        end: match.index + match[0].length,
        inner: match[2],
        tag,
      };
    }
  }
  if (best === null) {
    expand(text, tokens, ctx, parent);
    return;
  }
  if (best.start > 0) expand(text.slice(0, best.start), tokens, ctx, parent);
  const node = document.createElement(best.tag);
  styled(best.inner, tokens, ctx, node);
  parent.appendChild(node);
  styled(text.slice(best.end), tokens, ctx, parent);
}

function inline(text, ctx, parent) {
  // Inline code first: its content is literal (entities still decoded, as Slack shows them).
  const parts = text.split(/(`[^`\n]+`)/);
  for (const part of parts) {
    if (part.length > 2 && part.startsWith("`") && part.endsWith("`")) {
      parent.appendChild(el("code", "", decodeEntities(part.slice(1, -1))));
      continue;
    }
    const tokens = [];
    const marked = part.replace(/<([^<>\n]+)>/g, (_, raw) => {
      tokens.push(raw);
      return TOKEN_OPEN + (tokens.length - 1) + TOKEN_CLOSE;
    });
    styled(marked, tokens, ctx, parent);
  }
}

function lines(text, ctx, parent) {
  const rows = text.split("\n");
  let quote = null;
  rows.forEach((row, index) => {
    const quoted = /^(&gt;|>)\s?/.exec(row);
    if (quoted) {
      if (quote === null) {
        quote = el("blockquote");
        parent.appendChild(quote);
      } else {
        quote.appendChild(document.createElement("br"));
      }
      inline(row.slice(quoted[0].length), ctx, quote);
      return;
    }
    quote = null;
    inline(row, ctx, parent);
    if (index < rows.length - 1 && !(rows[index + 1] || "").match(/^(&gt;|>)/)) {
      parent.appendChild(document.createElement("br"));
    }
  });
}

// The whole mrkdwn text as a <span class="mrkdwn">.
export function mrkdwn(text, ctx) {
  const root = el("span", "mrkdwn");
  const source = String(text ?? "");
  const chunks = source.split(/```/);
  chunks.forEach((chunk, index) => {
    if (index % 2 === 1 && index < chunks.length - 1) {
      root.appendChild(el("pre", "", decodeEntities(chunk.replace(/^\n/, ""))));
    } else {
      const piece = index % 2 === 1 ? "```" + chunk : chunk;
      lines(piece, ctx, root);
    }
  });
  return root;
}
