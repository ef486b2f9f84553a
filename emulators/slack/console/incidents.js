// The call-center emulator's bad day, from the console: a small form in the sidebar that
// makes one mobile network (or campaign) stop answering from a time, Vietnam's clock
// (network=Viettel:answer=0.05:from=10:00), and ends it. The stand-in passes it on to the
// emulator's control surface (/console/api/incidents); the app finds out only as Slack
// would let it: through the call records and its anomaly alerts.

import { el, getJSON } from "./dom.js";

const EXAMPLE = "network=Viettel:answer=0.05:from=10:00";

export async function installIncidents({ status }) {
  let first;
  try {
    first = await getJSON("/console/api/incidents");
  } catch {
    return;
  }
  if (!first.emulator) return; // no emulator behind this console
  const box = el("div", "incidents");
  box.id = "incidents";
  box.append(el("div", "nav-title", "Emulator: bad day"));
  const input = el("input", "incident-input");
  input.id = "incident-input";
  input.placeholder = EXAMPLE;
  input.setAttribute("aria-label", "Incident: network or campaign that stops answering");
  const add = el("button", "incident-button", "Stop answering");
  add.type = "button";
  add.id = "incident-add";
  const clear = el("button", "incident-button", "Answer again");
  clear.type = "button";
  clear.id = "incident-clear";
  const list = el("ul", "incident-list");
  list.id = "incident-list";
  box.append(input, add, clear, list);
  const live = document.getElementById("live");
  live.parentNode.insertBefore(box, live);

  function show(incidents) {
    list.replaceChildren(
      ...incidents.map((item) => {
        const until = item.ends ? ` → ${new Date(item.ends * 1000).toLocaleTimeString()}` : "";
        return el("li", "incident", `${item.incident}${until}`);
      }),
    );
  }

  async function send(payload) {
    const response = await fetch("/console/api/incidents", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(payload),
    });
    const body = await response.json();
    if (!body.ok) {
      status(body.error || `HTTP ${response.status}`, true);
      return;
    }
    show(body.incidents);
    status(body.incidents.length ? "the emulator's incident is in force" : "every network answers again");
  }

  add.addEventListener("click", () => send({ incident: input.value.trim() || EXAMPLE }));
  clear.addEventListener("click", () => send({ clear: true }));
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") add.click();
  });
  show(first.incidents);
}
