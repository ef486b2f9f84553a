// The demo console: a Slack-like client of the stand-in for one person at a time.
//
// It only reads the stand-in (/console/api/workspace, /console/api/state) and acts through
// the stand-in's signed driver (/console/api/command, action, submit, close, home, message,
// file), so the app sees exactly what Slack would send. A file shared here (the 📎 button,
// drag and drop, or one of the demo's samples) becomes the person's message with the file,
// as in Slack. The live feed (/console/api/events) says when
// something changed; the page then re-reads what it shows.

import { $, el, getJSON } from "./dom.js";
import { renderBlocks, renderFiles } from "./blocks.js";
import { mrkdwn } from "./mrkdwn.js";
import { installWorkflows } from "./workflows.js";
import { installIncidents } from "./incidents.js";

const app = {
  workspace: null,
  user: null,
  view: null, // a channel id, "home" (App Home) or "app" (the app's Messages tab)
  thread: null, // ts of the open thread's parent
  shown: { messages: "", home: "", modal: "", errors: "", thread: "" },
  modalInputs: [],
  completion: { items: [], index: -1 },
  refreshing: null,
  again: false,
};

// ---------------------------------------------------------------- talking to the stand-in

// The stand-in's JSON answer; one that is not JSON reads as a refusal with its HTTP status,
// and a refusal is shown in the status line.
async function answerOf(response, refused) {
  let body;
  try {
    body = await response.json();
  } catch {
    body = { ok: false, error: `HTTP ${response.status}` };
  }
  if (!body.ok) status(body.error || refused, true);
  return body;
}

async function post(path, payload) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(payload),
  });
  const body = await answerOf(response, "the stand-in refused");
  if (!body.ok) return body;
  if (body.delivered) {
    const verdict = body.in_time ? `acked in ${body.ack_ms} ms` : `NOT acked in time (status ${body.status})`;
    status(`${body.kind} → app ${verdict}`, !body.in_time);
  }
  scheduleRefresh();
  return body;
}

function status(text, bad = false) {
  const node = $("status");
  node.textContent = text;
  node.classList.toggle("bad", bad);
}

// ---------------------------------------------------------------- sharing a file

function canShare() {
  const channel = app.workspace.channels.find((c) => c.id === app.view);
  return Boolean(channel);
}

async function shareFile(file) {
  if (!canShare()) {
    status("Files are shared in a channel: open one first.", true);
    return null;
  }
  if (!file || !file.size) {
    status(`${file ? file.name : "The file"} is empty; Slack does not share empty files.`, true);
    return null;
  }
  if (file.size > app.workspace.max_upload) {
    status(`${file.name} is too large for the stand-in.`, true);
    return null;
  }
  const form = new FormData();
  form.append("user", app.user);
  form.append("channel", app.view);
  form.append("file", file, file.name);
  status(`sharing ${file.name}…`);
  const response = await fetch("/console/api/file", { method: "POST", body: form });
  const body = await answerOf(response, "the stand-in refused the file");
  if (!body.ok) return body;
  status(`shared ${file.name} in this channel`);
  scheduleRefresh();
  return body;
}

async function shareSample(sample) {
  const response = await fetch(sample.url, { cache: "no-store" });
  if (!response.ok) {
    status(`could not read the sample ${sample.name}`, true);
    return;
  }
  const blob = await response.blob();
  await shareFile(new File([blob], sample.name, { type: blob.type || "text/csv" }));
}

function closeAttachMenu() {
  $("attach-menu").hidden = true;
  $("attach").setAttribute("aria-expanded", "false");
}

function openAttachMenu() {
  const menu = $("attach-menu");
  menu.replaceChildren();
  const item = (label, note, act) => {
    const button = el("button", "attach-item", label);
    button.type = "button";
    button.setAttribute("role", "menuitem");
    if (note) button.appendChild(el("small", "", note));
    button.addEventListener("click", (event) => {
      event.stopPropagation();
      closeAttachMenu();
      act();
    });
    menu.appendChild(button);
  };
  item("Upload a file from your computer…", "or drop a file anywhere on the channel", () =>
    $("file-input").click(),
  );
  for (const sample of app.workspace.samples || []) {
    item(`Share the sample ${sample.name}`, sample.summary, () => shareSample(sample));
  }
  menu.hidden = false;
  $("attach").setAttribute("aria-expanded", "true");
  menu.querySelector("button").focus();
}

function setUpSharing() {
  const input = $("file-input");
  $("attach").addEventListener("click", (event) => {
    event.stopPropagation();
    if ($("attach-menu").hidden) openAttachMenu();
    else closeAttachMenu();
  });
  input.addEventListener("change", async () => {
    const [file] = input.files;
    input.value = "";
    if (file) await shareFile(file);
  });
  const main = document.querySelector(".main");
  const zone = $("drop-zone");
  let depth = 0;
  const carriesFiles = (event) => [...(event.dataTransfer?.types || [])].includes("Files");
  main.addEventListener("dragenter", (event) => {
    if (!carriesFiles(event) || !canShare()) return;
    event.preventDefault();
    depth += 1;
    zone.hidden = false;
  });
  main.addEventListener("dragover", (event) => {
    if (!carriesFiles(event) || !canShare()) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
  });
  main.addEventListener("dragleave", () => {
    depth = Math.max(0, depth - 1);
    if (!depth) zone.hidden = true;
  });
  main.addEventListener("drop", async (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    depth = 0;
    zone.hidden = true;
    for (const file of event.dataTransfer.files) await shareFile(file);
  });
}

// ---------------------------------------------------------------- context for the renderer

function renderContext(where) {
  const ws = app.workspace;
  const channels = {};
  for (const c of ws.channels) channels[c.id] = c;
  return {
    users: ws.users,
    channels,
    people: ws.people,
    rooms: ws.channels,
    surface: where.surface,
    fileUrl: (file) => {
      if (!file) return null;
      if (file.id) return `/console/files/${encodeURIComponent(file.id)}/file`;
      const match = /files-pri\/[A-Z0-9]+-([A-Z0-9]+)\//.exec(file.url || "");
      return match ? `/console/files/${match[1]}/file` : null;
    },
    confirm: askConfirm,
    act: (element, block, value) =>
      post("/console/api/action", {
        user: app.user,
        action_id: element.action_id,
        block_id: block.block_id,
        value: value ?? null,
        ...where.target,
      }),
    inputs: where.inputs,
    errors: where.errors,
  };
}

function askConfirm(dialog) {
  return new Promise((resolve) => {
    const backdrop = $("confirm-backdrop");
    const box = $("confirm");
    box.replaceChildren();
    box.appendChild(el("h2", "modal-title", textOf(dialog.title) || "Are you sure?"));
    const body = el("div", "modal-body");
    body.appendChild(
      dialog.text && dialog.text.type === "mrkdwn"
        ? mrkdwn(dialog.text.text, renderContext({ surface: "message", target: {} }))
        : document.createTextNode(textOf(dialog.text)),
    );
    box.appendChild(body);
    const footer = el("div", "modal-footer");
    const deny = el("button", "btn", textOf(dialog.deny) || "Cancel");
    const confirm = el("button", "btn " + (dialog.style === "danger" ? "danger" : "primary"),
      textOf(dialog.confirm) || "Yes");
    deny.type = confirm.type = "button";
    const done = (answer) => {
      backdrop.hidden = true;
      resolve(answer);
    };
    deny.addEventListener("click", () => done(false));
    confirm.addEventListener("click", () => done(true));
    footer.append(deny, confirm);
    box.appendChild(footer);
    backdrop.hidden = false;
    confirm.focus();
  });
}

function textOf(obj) {
  if (!obj) return "";
  return typeof obj === "string" ? obj : String(obj.text ?? "");
}

// ---------------------------------------------------------------- messages

function author(message) {
  const ws = app.workspace;
  if (message.subtype === "ephemeral") {
    return message.source === "slackbot" ? { name: "Slackbot", app: false } : { name: ws.bot.name, app: true };
  }
  if (message.bot_id || message.user === ws.bot.id) {
    return { name: (message.bot_profile && message.bot_profile.name) || ws.bot.name, app: true };
  }
  const person = ws.users[message.user];
  return { name: person ? person.real_name : message.user || "someone", app: false };
}

function timeOf(ts) {
  const date = new Date(Number(ts) * 1000);
  return date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

function messageNode(message, where, { inThread = false } = {}) {
  const who = author(message);
  const node = el("article", "message" + (message.subtype === "ephemeral" ? " ephemeral" : ""));
  node.dataset.ts = message.ts;
  const avatar = el("div", "avatar" + (who.app ? " app" : ""), who.name.slice(0, 1).toUpperCase());
  const content = el("div", "message-content");
  const meta = el("div", "meta");
  meta.appendChild(el("span", "author", who.name));
  if (who.app) meta.appendChild(el("span", "badge", "APP"));
  meta.appendChild(el("span", "time", timeOf(message.ts)));
  if (message.edited) meta.appendChild(el("span", "edited", "(edited)"));
  content.appendChild(meta);
  if (message.subtype === "ephemeral") {
    content.appendChild(el("div", "only-you", "👁 Only visible to you"));
  }
  const ctx = renderContext(where);
  if (message.blocks && message.blocks.length) {
    content.appendChild(renderBlocks(message.blocks, ctx));
  } else if (message.text) {
    const text = el("div", "message-text");
    text.appendChild(mrkdwn(message.text, ctx));
    content.appendChild(text);
  }
  if (message.files && message.files.length) content.appendChild(renderFiles(message.files, ctx));
  const replies = Number(message.reply_count || 0);
  if (replies > 0 && !inThread) {
    const link = el("button", "thread-link", `💬 ${replies} ${replies === 1 ? "reply" : "replies"}`);
    link.type = "button";
    link.addEventListener("click", () => openThread(message.ts));
    content.appendChild(link);
  }
  node.append(avatar, content);
  return node;
}

function whereFor(message, channelId) {
  if (message.subtype === "ephemeral") {
    return { surface: "message", target: { ephemeral_ts: message.ts } };
  }
  return { surface: "message", target: { channel: channelId, ts: message.ts } };
}

function renderMessages(state) {
  const list = $("messages");
  const items = [...state.messages, ...state.ephemerals].sort((a, b) => Number(a.ts) - Number(b.ts));
  const key = JSON.stringify([state.channel.id, items, app.user]);
  if (key === app.shown.messages) return;
  app.shown.messages = key;
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  list.replaceChildren();
  if (!items.length) {
    list.appendChild(el("div", "empty", "No messages yet. Type /callops help to begin."));
  }
  for (const message of items) list.appendChild(messageNode(message, whereFor(message, state.channel.id)));
  const stick = atBottom || !list.dataset.seen;
  if (stick) {
    list.scrollTop = list.scrollHeight;
    // Images (a digest's chart) grow the list after they load: stay at the bottom.
    for (const img of list.querySelectorAll("img")) {
      img.addEventListener("load", () => (list.scrollTop = list.scrollHeight), { once: true });
    }
  }
  list.dataset.seen = "1";
}

function openThread(ts) {
  app.thread = ts;
  app.shown.thread = "";
  scheduleRefresh();
}

function renderThread(state) {
  const pane = $("thread");
  const parent = app.thread && state.messages.find((m) => m.ts === app.thread);
  if (!parent) {
    pane.hidden = true;
    app.shown.thread = "";
    return;
  }
  const key = JSON.stringify(parent);
  pane.hidden = false;
  if (key === app.shown.thread) return;
  app.shown.thread = key;
  const body = $("thread-body");
  body.replaceChildren();
  body.appendChild(messageNode(parent, whereFor(parent, state.channel.id), { inThread: true }));
  const count = (parent.replies || []).length;
  body.appendChild(el("div", "thread-count", `${count} ${count === 1 ? "reply" : "replies"}`));
  for (const reply of parent.replies || []) {
    body.appendChild(messageNode(reply, whereFor(reply, state.channel.id), { inThread: true }));
  }
}

// ---------------------------------------------------------------- App Home

function renderHome(state) {
  const pane = $("home");
  const view = state.home;
  const key = JSON.stringify([view, app.user]);
  if (key === app.shown.home) return;
  app.shown.home = key;
  pane.replaceChildren();
  if (!view) {
    pane.appendChild(el("div", "empty", "The app has not published a Home tab for you yet…"));
    return;
  }
  const where = { surface: "home", target: { view_id: view.id } };
  pane.appendChild(renderBlocks(view.blocks, renderContext(where)));
}

// ---------------------------------------------------------------- modals

function readInputs() {
  const values = {};
  for (const input of app.modalInputs) {
    values[input.block_id] = { [input.action_id]: input.read() };
  }
  return values;
}

function renderModal(state) {
  const backdrop = $("modal-backdrop");
  const views = state.views || [];
  const top = views[views.length - 1];
  if (!top) {
    backdrop.hidden = true;
    app.shown.modal = app.shown.errors = "";
    app.modalInputs = [];
    return;
  }
  const key = `${top.id}:${top.hash}`;
  const errors = JSON.stringify(top.errors || {});
  if (key === app.shown.modal) {
    if (errors !== app.shown.errors) {
      app.shown.errors = errors;
      for (const input of app.modalInputs) input.showError((top.errors || {})[input.block_id]);
    }
    backdrop.hidden = false;
    return;
  }
  app.shown.modal = key;
  app.shown.errors = errors;
  const box = $("modal");
  box.replaceChildren();
  box.dataset.viewId = top.id;
  box.dataset.callbackId = top.callback_id || "";
  const header = el("div", "modal-header");
  if (views.length > 1) {
    const back = el("button", "icon-button", "←");
    back.type = "button";
    back.setAttribute("aria-label", "Back");
    back.addEventListener("click", () => post("/console/api/close", { user: app.user, view_id: top.id }));
    header.appendChild(back);
  }
  header.appendChild(el("h2", "modal-title", textOf(top.title)));
  const x = el("button", "icon-button", "✕");
  x.type = "button";
  x.setAttribute("aria-label", "Close");
  x.addEventListener("click", () => post("/console/api/close", { user: app.user, view_id: views[0].id }));
  header.appendChild(x);
  box.appendChild(header);
  app.modalInputs = [];
  const where = { surface: "modal", target: { view_id: top.id }, inputs: app.modalInputs, errors: top.errors || {} };
  const body = el("div", "modal-body");
  body.appendChild(renderBlocks(top.blocks, renderContext(where)));
  box.appendChild(body);
  const footer = el("div", "modal-footer");
  const close = el("button", "btn", textOf(top.close) || (top.submit ? "Cancel" : "Close"));
  close.type = "button";
  close.addEventListener("click", () => post("/console/api/close", { user: app.user, view_id: top.id }));
  footer.appendChild(close);
  if (top.submit) {
    const submit = el("button", "btn primary", textOf(top.submit));
    submit.type = "submit";
    submit.addEventListener("click", () => submitModal(top.id));
    footer.appendChild(submit);
  }
  box.appendChild(footer);
  backdrop.hidden = false;
}

async function submitModal(viewId) {
  let missing = false;
  for (const input of app.modalInputs) {
    const value = input.read();
    const empty = value === null || value === "" || (Array.isArray(value) && !value.length);
    if (!input.optional && empty) {
      input.showError("Please complete this required field.");
      missing = true;
    } else {
      input.showError("");
    }
  }
  if (missing) return;
  await post("/console/api/submit", { user: app.user, view_id: viewId, values: readInputs() });
}

// ---------------------------------------------------------------- refreshing

function scheduleRefresh() {
  if (app.refreshing) {
    app.again = true;
    return;
  }
  app.refreshing = setTimeout(refresh, 30);
}

async function refresh() {
  const asked = { user: app.user, view: app.view };
  try {
    const channel = app.view === "home" ? "" : `&channel=${encodeURIComponent(app.view)}`;
    const state = await getJSON(`/console/api/state?user=${encodeURIComponent(app.user)}${channel}`);
    if (asked.user !== app.user || asked.view !== app.view) {
      app.again = true; // the person or the view changed meanwhile: this answer is stale
      return;
    }
    if (app.view === "home") renderHome(state);
    else {
      renderMessages(state);
      renderThread(state);
    }
    renderModal(state);
  } catch (error) {
    status(String(error.message || error), true);
  } finally {
    app.refreshing = null;
    if (app.again) {
      app.again = false;
      scheduleRefresh();
    }
  }
}

function listen() {
  const live = $("live");
  const source = new EventSource("/console/api/events");
  source.onopen = () => {
    live.textContent = "● live";
    live.classList.add("on");
    scheduleRefresh();
  };
  source.onerror = () => {
    live.textContent = "● reconnecting";
    live.classList.remove("on");
  };
  source.onmessage = (event) => {
    try {
      const change = JSON.parse(event.data);
      if (change.kind === "delivery" && change.user === app.user) {
        document.body.dataset.lastDelivery = change.delivered;
      }
    } catch {
      /* a malformed line only costs one refresh */
    }
    scheduleRefresh();
  };
}

// ---------------------------------------------------------------- navigation

function show(view) {
  app.view = view;
  app.thread = null;
  app.shown.messages = app.shown.home = app.shown.thread = "";
  $("messages").replaceChildren();
  $("home").replaceChildren();
  const ws = app.workspace;
  for (const item of document.querySelectorAll(".nav-item")) {
    item.classList.toggle("active", item.dataset.view === view);
  }
  const home = view === "home";
  $("home").hidden = !home;
  $("messages").hidden = home;
  $("thread").hidden = true;
  $("composer-area").hidden = home;
  const channel = ws.channels.find((c) => c.id === view);
  $("attach").hidden = !channel;
  closeAttachMenu();
  $("view-title").textContent = home ? `${ws.bot.name} · Home` : view === "app" ? `${ws.bot.name} · Messages` : `#${channel.name}`;
  $("view-note").textContent =
    channel && !channel.bot_member ? `${ws.bot.name} is not a member of this channel` : "";
  $("composer").placeholder = home ? "" : `Message ${channel ? "#" + channel.name : ws.bot.name} — type ${ws.command} for commands`;
  const params = new URLSearchParams({ user: app.user, view });
  history.replaceState(null, "", `?${params}`);
  if (home) post("/console/api/home", { user: app.user });
  scheduleRefresh();
}

function switchUser(user) {
  app.user = user;
  app.shown.modal = app.shown.errors = "";
  $("user-switcher").value = user;
  document.body.dataset.user = user;
  show(app.view);
}

// ---------------------------------------------------------------- composer and completion

function completionItems(text) {
  const ws = app.workspace;
  if (!text.startsWith("/")) return [];
  const space = text.indexOf(" ");
  if (space < 0) {
    return ws.command.startsWith(text) ? [{ fill: ws.command + " ", name: ws.command, usage: ws.command + " <subcommand>", summary: "Run the call center from Slack" }] : [];
  }
  if (text.slice(0, space) !== ws.command) return [];
  const rest = text.slice(space + 1).replace(/^\s+/, "").toLowerCase();
  return ws.completions
    .filter((c) => c.name.startsWith(rest) || (rest.startsWith(c.name + " ") && c.usage !== c.name))
    .slice(0, 12)
    .map((c) => ({ fill: `${ws.command} ${c.name} `, name: c.name, usage: `${ws.command} ${c.usage}`, summary: c.summary }));
}

function renderCompletions() {
  const list = $("completions");
  const { items, index } = app.completion;
  list.replaceChildren();
  list.hidden = items.length === 0;
  items.forEach((item, i) => {
    const row = el("li", "completion" + (i === index ? " selected" : ""));
    row.setAttribute("role", "option");
    row.dataset.name = item.name;
    row.appendChild(el("span", "completion-usage", item.usage));
    row.appendChild(el("span", "completion-summary", item.summary));
    row.addEventListener("mousedown", (event) => {
      event.preventDefault();
      accept(item);
    });
    list.appendChild(row);
  });
}

function updateCompletions() {
  app.completion = { items: completionItems($("composer").value), index: -1 };
  renderCompletions();
}

function accept(item) {
  const composer = $("composer");
  composer.value = item.fill;
  composer.focus();
  updateCompletions();
}

async function send() {
  const composer = $("composer");
  const text = composer.value.trim();
  if (!text) return;
  composer.value = "";
  updateCompletions();
  const path = text.startsWith("/") ? "/console/api/command" : "/console/api/message";
  status(text.startsWith("/") ? `sending ${text}…` : "posting…");
  await post(path, { user: app.user, channel: app.view, text });
}

function composerKeys(event) {
  const { items, index } = app.completion;
  if (items.length && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
    event.preventDefault();
    const step = event.key === "ArrowDown" ? 1 : -1;
    app.completion.index = (index + step + items.length) % items.length;
    renderCompletions();
    return;
  }
  if (items.length && event.key === "Tab") {
    event.preventDefault();
    accept(items[Math.max(index, 0)]);
    return;
  }
  if (event.key === "Escape") {
    app.completion = { items: [], index: -1 };
    renderCompletions();
    return;
  }
  if (event.key === "Enter" && !event.shiftKey) {
    event.preventDefault();
    if (items.length && index >= 0) accept(items[index]);
    else send();
  }
}

// ---------------------------------------------------------------- start

async function start() {
  const ws = await getJSON("/console/api/workspace");
  app.workspace = ws;
  document.title = ws.title;
  $("team-name").textContent = ws.team.name;
  const switcher = $("user-switcher");
  for (const person of ws.people) {
    const option = el("option", "", `${person.real_name} (@${person.name})`);
    option.value = person.id;
    switcher.appendChild(option);
  }
  switcher.addEventListener("change", () => switchUser(switcher.value));
  const list = $("channel-list");
  for (const channel of ws.channels) {
    const item = el("button", "nav-item", `# ${channel.name}`);
    item.type = "button";
    item.dataset.view = channel.id;
    item.dataset.channelName = channel.name;
    list.appendChild(item);
  }
  document.querySelectorAll(".nav-item").forEach((item) =>
    item.addEventListener("click", () => show(item.dataset.view)),
  );
  $("thread-close").addEventListener("click", () => {
    app.thread = null;
    $("thread").hidden = true;
  });
  const composer = $("composer");
  composer.addEventListener("input", updateCompletions);
  composer.addEventListener("keydown", composerKeys);
  setUpSharing();
  document.addEventListener("click", (event) => {
    document.querySelectorAll(".overflow-menu").forEach((m) => (m.hidden = true));
    closeAttachMenu();
    if (event.target !== composer && app.completion.items.length) {
      app.completion = { items: [], index: -1 };
      renderCompletions();
    }
  });
  const params = new URLSearchParams(location.search);
  const user = ws.people.find((p) => p.id === params.get("user") || p.name === params.get("user"));
  app.user = user ? user.id : ws.people[0].id;
  switcher.value = app.user;
  document.body.dataset.user = app.user;
  const wanted = params.get("view") || params.get("channel");
  const channel = ws.channels.find((c) => c.id === wanted || c.name === wanted);
  app.view = wanted === "home" || wanted === "app" ? wanted : channel ? channel.id : ws.channels[0].id;
  await installWorkflows({ user: () => app.user, view: () => app.view, post, status, workspace: ws });
  await installIncidents({ status });
  listen();
  show(app.view);
  document.body.dataset.ready = "1";
}

start().catch((error) => status(`The console could not start: ${error.message}`, true));
