// The review page's loading, deciding and live updates: the state read from /api/state and drawn, a
// decision posted with the CSRF token, a redraw on every change the server reports. The last script the
// page loads (index.html); the others define what it draws with.

import { cardView } from "./cards.js"
import { el, state } from "./dom.js"
import { timeline } from "./timeline.js"

const render = () => {
  // A redraw keeps what the user was typing (notes, reasons) and where the focus was.
  const typed = new Map([...document.querySelectorAll("main input[type=text]")].map((input) => [input.id, input.value]))
  const focused = document.activeElement?.id
  const data = state.data
  const now = Date.parse(data.now)
  document.getElementById("where").textContent =
    `${data.root} · ${data.modeOf === "server" ? "the server's mode" : "no server is running; this page's mode"} ${["Manual (0)", "Plan (1)", "Auto (2)"][data.mode]} · ${data.pending.length} pending`
  const pending = document.getElementById("pending-list")
  pending.replaceChildren(
    ...(data.pending.length === 0
      ? [el("p", {}, "Nothing is pending.")]
      : data.pending.map((card) => cardView(card, data, now, decide)))
  )
  const plans = document.getElementById("plan-list")
  plans.replaceChildren(
    ...(data.plans.length === 0
      ? [el("p", {}, "No plan is pending or approved.")]
      : data.plans.map((card) => cardView(card, data, now, decide)))
  )
  document.getElementById("timeline-list").replaceChildren(timeline(data))
  // Streams and kept output of jobs no longer listed are dropped; the others carry on into the new page.
  const listed = new Set((data.changes?.jobs ?? []).map((job) => job.id))
  for (const [id, entry] of state.tails) {
    if (listed.has(id)) continue
    entry.source?.close()
    state.tails.delete(id)
  }
  for (const [id, value] of typed) {
    const input = document.getElementById(id)
    if (input !== null && value !== "") input.value = value
  }
  if (focused) document.getElementById(focused)?.focus()
  document.body.dataset.loaded = String(Date.now())
}

const load = async () => {
  if (state.loading) {
    state.again = true
    return
  }
  state.loading = true
  try {
    const response = await fetch("/api/state", { cache: "no-store" })
    if (!response.ok) {
      document.getElementById("where").textContent =
        `The review server refused (${response.status}): open the URL agentic-workspace review printed.`
      return
    }
    const data = await response.json()
    state.csrf = data.csrf
    state.data = data
    render()
  } finally {
    state.loading = false
    if (state.again) {
      state.again = false
      void load()
    }
  }
}

const say = (text) => {
  document.getElementById("status").textContent = text
}

async function decide(card, verb, text, buttons) {
  for (const button of buttons) button.disabled = true
  const response = await fetch("/api/decide", {
    method: "POST",
    headers: { "content-type": "application/json", "x-csrf-token": state.csrf },
    body: JSON.stringify({
      verb,
      id: card.record.id,
      hash: card.record.hash ?? "",
      version: card.version,
      ...(text ? { text } : {})
    })
  }).catch(() => undefined)
  const answer = response ? await response.json().catch(() => ({})) : {}
  if (response?.ok && answer.ok) say(`${verb === "accept" ? "Accepted" : "Denied"} ${card.record.id}.`)
  else
    say(
      `Not decided: ${answer.error?.message ?? `the server answered ${response?.status ?? "nothing"}`} The page has been refreshed.`
    )
  await load()
}

for (const input of document.querySelectorAll('input[name="diffview"]')) {
  input.addEventListener("change", () => {
    state.view = input.value
    if (state.data) render()
  })
}
const events = new EventSource("/api/events")
events.addEventListener("changed", () => void load())
void load()
