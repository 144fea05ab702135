// The review page's timeline, "What happened": transactions, version control, jobs (with their output,
// followed live for the newest), runs, research and task boards, newest first.

import { ago, el, state } from "./dom.js"
import { diffView } from "./diff.js"

/**
 * At most this many jobs are followed live at once: each EventSource holds one of the browser's six
 * connections to this server, and the page's own events, state and decisions need theirs.
 */
const MAX_LIVE_TAILS = 4
const tailText = (tail) => tail.stdout + (tail.stderr ? `\n[stderr]\n${tail.stderr}` : "")

/**
 * A job's output. A followed job keeps its stream and its text across redraws (a redraw happens when the
 * job ends and writes exit.json: the stream's last message, sent after it saw the exit, still lands in
 * the new element). A job not followed live has a button that reads its output once.
 */
const jobTail = (job, live) => {
  const out = el("pre", { class: "tail", tabindex: "0", "aria-label": `Output of ${job.id}` }, "")
  const known = state.tails.get(job.id)
  if (known !== undefined) {
    known.out = out
    out.textContent = known.text
    return out
  }
  if (job.status === "running" && live) {
    const entry = { text: "", out, source: new EventSource(`/api/jobs/${encodeURIComponent(job.id)}/tail`) }
    state.tails.set(job.id, entry)
    entry.source.addEventListener("tail", (event) => {
      entry.text = tailText(JSON.parse(event.data))
      entry.out.textContent = entry.text
    })
    entry.source.addEventListener("done", () => entry.source.close())
    entry.source.addEventListener("gone", () => entry.source.close())
    return out
  }
  const holder = el("div", {})
  const button = el("button", { type: "button" }, `Show the output of ${job.id}`)
  button.addEventListener("click", async () => {
    const response = await fetch(`/api/jobs/${encodeURIComponent(job.id)}/output`)
    if (!response.ok) {
      out.textContent = "The output is not available."
      return
    }
    const tail = await response.json()
    // A finished job's output does not change: keep it across redraws.
    if (tail.done) state.tails.set(job.id, { text: tailText(tail), out, source: undefined })
    out.textContent = tailText(tail)
  })
  holder.append(button, out)
  return holder
}

const graph = (board) => {
  const byId = new Map(board.tasks.map((task) => [task.id, task]))
  const depth = new Map()
  const level = (task, seen = new Set()) => {
    if (depth.has(task.id)) return depth.get(task.id)
    if (seen.has(task.id)) return 0
    seen.add(task.id)
    const deps = task.dependsOn.map((id) => byId.get(id)).filter(Boolean)
    const d = deps.length === 0 ? 0 : 1 + Math.max(...deps.map((dep) => level(dep, seen)))
    depth.set(task.id, d)
    return d
  }
  for (const task of board.tasks) level(task)
  const layers = []
  for (const task of board.tasks) {
    const at = depth.get(task.id)
    if (layers[at] === undefined) layers[at] = []
    layers[at].push(task)
  }
  return el(
    "div",
    { class: "graph", role: "list", "aria-label": `Task board ${board.title} as a dependency graph` },
    layers.map((layer, index) =>
      el(
        "div",
        { class: "layer", role: "listitem" },
        el("strong", {}, index === 0 ? "Start" : `Step ${index + 1}`),
        el(
          "ol",
          {},
          layer.map((task) =>
            el(
              "li",
              { class: "task" },
              `${task.id} [${task.status}] ${task.title}`,
              task.dependsOn.length > 0
                ? el("span", { class: "meta" }, ` ← after ${task.dependsOn.join(", ")}`)
                : undefined
            )
          )
        )
      )
    )
  )
}

const txDiff = (tx) => {
  const holder = el("div", {})
  const button = el("button", { type: "button" }, `Show the diff of ${tx.id}`)
  button.addEventListener("click", async () => {
    const response = await fetch(`/api/transactions/${encodeURIComponent(tx.id)}/diff`)
    holder.replaceChildren(response.ok ? diffView(await response.text()) : el("p", {}, "The diff is not available."))
  })
  holder.append(button)
  return holder
}

/** When a timeline entry happened, by the first time field it has. */
const when = (entry) => entry.committedAt ?? entry.startedAt ?? entry.at ?? entry.createdAt ?? entry.updatedAt ?? ""

/** A transaction: its status and files, and its diff on demand. */
const txItem = (tx) =>
  el(
    "li",
    {},
    el("span", { class: "badge" }, "transaction"),
    `${tx.id} ${tx.status ?? ""} · ${tx.fileCount ?? (tx.files ?? []).length} file(s): ${(tx.files ?? []).join(", ")}`,
    txDiff(tx)
  )

/** A recorded version control operation (commit, push, branch, checkout, ...), its commit and branch. */
const vcsItem = (entry, data) => {
  const op = String(entry.operation ?? "vcs")
    .replace(/^vcs\./, "")
    .replace(/_/g, " ")
  return el(
    "li",
    {},
    el("span", { class: "badge" }, op),
    entry.commit ? el("code", { title: entry.commit }, entry.commit.slice(0, 12)) : undefined,
    entry.commit ? " " : "",
    entry.commit && data.subjects?.[entry.commit] !== undefined
      ? el("strong", {}, data.subjects[entry.commit])
      : undefined,
    entry.commit && data.subjects?.[entry.commit] !== undefined ? " · " : "",
    entry.summary ?? "",
    el(
      "span",
      { class: "meta" },
      ` · ${entry.at ? ago(entry.at, Date.parse(data.now)) : ""}${entry.branch ? ` · ${entry.branch}` : ""}${entry.remote ? ` · ${entry.remote}` : ""}`
    )
  )
}

/** A job: its status and exit code, and its output (followed live when `live`). */
const jobItem = (job, live) =>
  el(
    "li",
    {},
    el("span", { class: "badge" }, "job"),
    `${job.id} ${job.status} · ${job.executable ?? ""}${job.exitCode === undefined || job.exitCode === null ? "" : ` · exit ${job.exitCode}`}`,
    jobTail(job, live)
  )

/** A sub-agent run. */
const runItem = (run) =>
  el(
    "li",
    {},
    el("span", { class: "badge" }, "run"),
    `${run.runId} ${run.status} · ${run.mode ?? ""} · ${run.objective ?? ""}`,
    el("span", { class: "meta" }, ` · ${run.statePath ?? ""}`)
  )

/** A research project and its sources. */
const researchItem = (project) =>
  el(
    "li",
    {},
    el("span", { class: "badge" }, "research"),
    `${project.id} ${project.status} · ${project.title}${project.question ? `: ${project.question}` : ""} · ${project.sourceCount} source${project.sourceCount === 1 ? "" : "s"}`,
    project.sources.length === 0
      ? undefined
      : el(
          "ul",
          { "aria-label": `Sources of ${project.id}` },
          project.sources.map((source) =>
            el(
              "li",
              {},
              el("code", {}, source.id),
              " ",
              source.title || "(untitled)",
              " — ",
              el("code", {}, source.url)
            )
          )
        ),
    project.sourceCount > project.sources.length
      ? el("p", { class: "meta" }, `… and ${project.sourceCount - project.sources.length} more.`)
      : undefined
  )

/** A task board, as its dependency graph. */
const boardItem = (board) =>
  el(
    "li",
    {},
    el("span", { class: "badge" }, "task board"),
    board.title,
    board.problem ? el("p", { class: "problem", role: "alert" }, board.problem) : undefined,
    graph(board)
  )

/** Everything that happened, newest first; each item's node is built only after the sort. */
export const timeline = (data) => {
  const changes = data.changes ?? {}
  const items = []
  for (const tx of changes.transactions ?? []) items.push({ at: when(tx), node: () => txItem(tx) })
  for (const entry of changes.vcs ?? []) items.push({ at: when(entry), node: () => vcsItem(entry, data) })
  // Live tails go to the newest running jobs (nodes are built newest first, after the sort below).
  let live = [...state.tails.values()].filter(
    (entry) => entry.source !== undefined && entry.source.readyState !== 2
  ).length
  const liveSlot = (job) => job.status === "running" && !state.tails.has(job.id) && live < MAX_LIVE_TAILS && ++live > 0
  for (const job of changes.jobs ?? []) items.push({ at: when(job), node: () => jobItem(job, liveSlot(job)) })
  for (const run of changes.runs ?? []) items.push({ at: when(run), node: () => runItem(run) })
  for (const project of data.research ?? []) items.push({ at: project.updatedAt, node: () => researchItem(project) })
  for (const board of data.boards ?? []) items.push({ at: "", node: () => boardItem(board) })
  items.sort((a, b) => String(b.at).localeCompare(String(a.at)))
  return items.length === 0
    ? el("p", {}, "Nothing has happened yet.")
    : el(
        "ol",
        { class: "timeline" },
        items.map((item) => item.node())
      )
}
