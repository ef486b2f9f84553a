// Workflow Builder and shortcuts in the console, as Slack offers them to a person.
//
// "Run a step": pick one of the app's steps (its manifest's functions), fill its inputs,
// run it as the signed-in person (the stand-in sends function_executed), or "as a
// schedule" (no interactivity: nobody started it, so it acts with the role given to
// workflows), and see its outputs or its error once the app answers (a step waiting on an
// approval stays "running" until someone decides in #approvals; the panel keeps following
// it while closed and shows how it ended when reopened). The panel follows the person
// switcher: "You (…)" is whoever is signed in now.
// Shortcuts: the app's global shortcuts under ⚡ in the sidebar; its message shortcuts in
// each message's ⋯ menu. Everything goes through /console/api (console_workflows.py).

import { $, el, getJSON } from "./dom.js";

const state = {
  api: null,
  workflows: { steps: [], shortcuts: [] },
  run: null,
  timer: null,
  step: null,
  workspace: null,
  unattended: false,
};

// ---------------------------------------------------------------- the step panel

function inputFor(parameter, workspace) {
  const kind = parameter.type;
  let field;
  if (kind === "boolean") {
    field = el("input");
    field.type = "checkbox";
    return { field, read: () => field.checked };
  }
  if (kind === "slack#/types/user_id" || kind === "slack#/types/channel_id") {
    field = el("select", "select");
    field.appendChild(el("option", "", "—"));
    const items = kind === "slack#/types/user_id" ? workspace.people : workspace.channels;
    for (const item of items) {
      const option = el("option", "", (kind.endsWith("user_id") ? "@" : "#") + item.name);
      option.value = item.id;
      field.appendChild(option);
    }
    return { field, read: () => field.value || null };
  }
  if (kind === "object" || kind === "array") {
    field = el("textarea", "input");
    field.rows = 2;
    field.placeholder = kind === "object" ? '{"name": "An"}' : "[]";
    return {
      field,
      read: () => {
        const text = field.value.trim();
        return text ? JSON.parse(text) : null;
      },
    };
  }
  field = el("input", "input");
  const numeric = ["integer", "number", "slack#/types/timestamp"].includes(kind);
  field.type = numeric ? "number" : "text";
  if (parameter.hint) field.placeholder = parameter.hint;
  return {
    field,
    read: () => {
      const text = field.value.trim();
      if (!text) return null;
      return numeric ? Number(text) : text;
    },
  };
}

function describeValue(parameter, value) {
  if (value === null || value === undefined || value === "") return "–";
  if (parameter && parameter.type === "slack#/types/timestamp" && typeof value === "number") {
    return `${new Date(value * 1000).toLocaleString()} (${value})`;
  }
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

function showResult(step, run) {
  const box = $("step-result");
  box.replaceChildren();
  box.dataset.state = run ? run.state : "";
  if (!run) return;
  if (run.state === "running") {
    box.appendChild(
      el("div", "step-waiting", "⏳ Running… (a step that asks for an approval waits for the decision in #approvals)"),
    );
    return;
  }
  if (run.state === "failed") {
    box.appendChild(el("div", "step-error", `✖ Failed: ${run.error}`));
    return;
  }
  box.appendChild(el("div", "step-done", "✔ Completed"));
  const table = el("table", "step-outputs");
  for (const parameter of step.outputs) {
    const tr = el("tr");
    tr.dataset.output = parameter.name;
    tr.appendChild(el("th", "", parameter.title || parameter.name));
    tr.appendChild(el("td", "", describeValue(parameter, (run.outputs || {})[parameter.name])));
    table.appendChild(tr);
  }
  box.appendChild(table);
}

async function follow(step, runId) {
  clearTimeout(state.timer);
  state.run = runId;
  try {
    const { run } = await getJSON(`/console/api/step?id=${encodeURIComponent(runId)}`);
    if (state.run !== runId) return;
    showResult(step, run);
    if (run.state === "running") {
      // Followed while the panel is closed too: a denial or an approval decided in
      // #approvals is what the reopened panel shows, not "Running…".
      state.timer = setTimeout(() => follow(step, runId), 400);
    }
  } catch (error) {
    state.api.status(String(error.message || error), true);
  }
}

function whoRunsIt(row, workspace) {
  const who = workspace.people.find((p) => p.id === state.api.user());
  const choice = el("select", "select");
  choice.name = "interactivity";
  const person = el("option", "", `You (${who ? who.real_name : state.api.user()}): the person who started the workflow`);
  person.value = "person";
  const schedule = el("option", "", "Nobody: run as a schedule (no interactivity; the role given to workflows)");
  schedule.value = "schedule";
  choice.append(person, schedule);
  choice.value = state.unattended ? "schedule" : "person";
  choice.addEventListener("change", () => {
    state.unattended = choice.value === "schedule";
  });
  row.appendChild(choice);
}

function drawStep(step, workspace, { keepResult = false } = {}) {
  const form = $("step-form");
  form.replaceChildren();
  $("step-description").textContent = step ? step.description : "";
  if (!keepResult || step !== state.step) {
    clearTimeout(state.timer);
    state.run = null;
    state.unattended = false;
    showResult(step, null);
  }
  state.step = step;
  state.workspace = workspace;
  if (!step) return;
  const readers = [];
  for (const parameter of step.inputs) {
    const row = el("label", "step-input");
    row.dataset.input = parameter.name;
    const title = (parameter.title || parameter.name) + (parameter.is_required ? " *" : "");
    row.appendChild(el("span", "step-label", title));
    if (parameter.type === "slack#/types/interactivity") {
      whoRunsIt(row, workspace);
      form.appendChild(row);
      continue;
    }
    const { field, read } = inputFor(parameter, workspace);
    field.name = parameter.name;
    row.appendChild(field);
    if (parameter.description) row.appendChild(el("span", "step-hint", parameter.description));
    form.appendChild(row);
    readers.push([parameter, read]);
  }
  const run = el("button", "btn primary", "Run step");
  run.type = "button";
  run.id = "step-run";
  run.addEventListener("click", async () => {
    const inputs = {};
    try {
      for (const [parameter, read] of readers) {
        const value = read();
        if (value !== null && value !== undefined) inputs[parameter.name] = value;
      }
    } catch (error) {
      $("step-result").replaceChildren(el("div", "step-error", `That is not JSON: ${error.message}`));
      return;
    }
    const body = await state.api.post("/console/api/step", {
      user: state.api.user(),
      callback_id: step.callback_id,
      inputs,
      unattended: state.unattended,
    });
    if (body.ok && body.run) follow(step, body.run);
    else if (!body.ok) $("step-result").replaceChildren(el("div", "step-error", body.error));
  });
  form.appendChild(run);
}

function buildPanel(workspace) {
  const backdrop = el("div", "modal-backdrop step-backdrop");
  backdrop.id = "step-panel";
  backdrop.hidden = true;
  const dialog = el("div", "modal step-dialog");
  dialog.setAttribute("role", "dialog");
  const header = el("div", "modal-header");
  header.appendChild(el("h2", "modal-title", "Run a workflow step"));
  const close = el("button", "icon-button", "✕");
  close.type = "button";
  close.setAttribute("aria-label", "Close");
  close.addEventListener("click", () => {
    backdrop.hidden = true;
  });
  header.appendChild(close);
  const body = el("div", "modal-body");
  const picker = el("select", "select");
  picker.id = "step-picker";
  picker.appendChild(el("option", "", "Choose a step…"));
  for (const step of state.workflows.steps) {
    const option = el("option", "", step.title);
    option.value = step.callback_id;
    picker.appendChild(option);
  }
  picker.addEventListener("change", () =>
    drawStep(state.workflows.steps.find((s) => s.callback_id === picker.value), workspace),
  );
  const description = el("p", "step-description");
  description.id = "step-description";
  const form = el("div", "step-form");
  form.id = "step-form";
  const result = el("div", "step-result");
  result.id = "step-result";
  body.append(picker, description, form, result);
  dialog.append(header, body);
  backdrop.appendChild(dialog);
  document.body.appendChild(backdrop);
}

// ---------------------------------------------------------------- shortcuts

function messageShortcuts() {
  return state.workflows.shortcuts.filter((s) => s.type === "message");
}

function closeMenus() {
  document.querySelectorAll(".shortcut-menu").forEach((m) => m.remove());
}

function decorate(node) {
  if (node.dataset.shortcuts || !node.dataset.ts || node.classList.contains("ephemeral")) return;
  if (!messageShortcuts().length) return;
  node.dataset.shortcuts = "1";
  const more = el("button", "msg-more", "⋯");
  more.type = "button";
  more.title = "More actions";
  more.setAttribute("aria-label", "More actions");
  more.addEventListener("click", (event) => {
    event.stopPropagation();
    closeMenus();
    const menu = el("div", "shortcut-menu");
    for (const shortcut of messageShortcuts()) {
      const item = el("button", "shortcut-item", shortcut.name);
      item.type = "button";
      item.title = shortcut.description;
      item.addEventListener("click", async (click) => {
        click.stopPropagation();
        closeMenus();
        await state.api.post("/console/api/shortcut", {
          user: state.api.user(),
          callback_id: shortcut.callback_id,
          channel: state.api.view(),
          ts: node.dataset.ts,
        });
      });
      menu.appendChild(item);
    }
    node.appendChild(menu);
  });
  node.appendChild(more);
}

function watchMessages() {
  const decorateAll = (root) => root.querySelectorAll(".message").forEach(decorate);
  for (const id of ["messages", "thread-body"]) {
    const root = $(id);
    if (!root) continue;
    decorateAll(root);
    new MutationObserver(() => decorateAll(root)).observe(root, { childList: true, subtree: true });
  }
  document.addEventListener("click", closeMenus);
}

function buildNav(workspace) {
  const nav = document.querySelector(".nav");
  const title = el("div", "nav-title", "Workflows");
  const run = el("button", "nav-item", "⚡ Run a step");
  run.type = "button";
  run.id = "nav-steps";
  run.addEventListener("click", () => {
    $("step-panel").hidden = false;
    // Whoever is signed in now runs the step; the last run's result stays.
    if (state.step) drawStep(state.step, state.workspace, { keepResult: true });
  });
  const items = [title, run];
  for (const shortcut of state.workflows.shortcuts.filter((s) => s.type === "global")) {
    const item = el("button", "nav-item shortcut-global", `⚡ ${shortcut.name}`);
    item.type = "button";
    item.dataset.shortcut = shortcut.callback_id;
    item.title = shortcut.description;
    item.addEventListener("click", () =>
      state.api.post("/console/api/shortcut", { user: state.api.user(), callback_id: shortcut.callback_id }),
    );
    items.push(item);
  }
  const channels = nav.querySelector("#channel-list");
  const anchor = channels ? channels.previousElementSibling : null;
  for (const item of items) nav.insertBefore(item, anchor);
}

// ---------------------------------------------------------------- start

// api: { user(), view(), post(path, body), status(text, bad), workspace }
export async function installWorkflows(api) {
  state.api = api;
  const link = el("link");
  link.rel = "stylesheet";
  link.href = "/console/static/workflows.css";
  document.head.appendChild(link);
  state.workflows = await getJSON("/console/api/workflows");
  if (!state.workflows.steps.length && !state.workflows.shortcuts.length) return;
  buildPanel(api.workspace);
  buildNav(api.workspace);
  const switcher = $("user-switcher");
  if (switcher) {
    switcher.addEventListener("change", () => {
      if (state.step) drawStep(state.step, state.workspace, { keepResult: true });
    });
  }
  watchMessages();
}
