// The review page. Plain script, no build step. Everything the workspace supplies (titles, diffs, plans,
// argv) is put in the page as text nodes: nothing from the server is parsed as HTML.

const state = { data: undefined, csrf: "", view: "unified", tails: new Map(), loading: false, again: false }

const el = (tag, attrs, ...children) => {
  const node = document.createElement(tag)
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === false) continue
    if (key === "class") node.className = value
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value)
    else node.setAttribute(key, value === true ? "" : String(value))
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue
    node.append(typeof child === "string" ? document.createTextNode(child) : child)
  }
  return node
}

const ago = (iso, now) => {
  const minutes = Math.max(0, Math.floor((now - Date.parse(iso)) / 60000))
  if (minutes < 1) return "just now"
  if (minutes < 60) return `${minutes}m ago`
  const hours = Math.floor(minutes / 60)
  return hours < 24 ? `${hours}h ${minutes % 60}m ago` : `${Math.floor(hours / 24)}d ${hours % 24}h ago`
}
const until = (iso, now) => {
  const minutes = Math.max(0, Math.floor((Date.parse(iso) - now) / 60000))
  const hours = Math.floor(minutes / 60)
  return hours > 0 ? `in ${hours}h ${minutes % 60}m` : `in ${minutes}m`
}
const word = (part) => (part === "" || /[\s"'\\$`|&;<>()*?]/.test(part) ? JSON.stringify(part) : part)
const argvLine = (argv) => argv.map(word).join(" ")

// ---- syntax highlighting (a small tokenizer: comments, strings, numbers, keywords) ----
const KEYWORDS = new Set(
  "const let var function return if else for while do switch case break continue new class extends import export from default async await try catch finally throw typeof instanceof in of yield def elif lambda pass raise with as fn pub struct enum impl match use mod package func go type interface true false null undefined None True False nil self this".split(
    " "
  )
)
const HASH_COMMENT = /\.(py|sh|bash|rb|ya?ml|toml|pl|r|conf|ini)$/i
const CODE =
  /\.(m?[jt]sx?|c[jt]s|py|sh|bash|rb|go|rs|java|kt|c|h|cc|cpp|hpp|cs|swift|php|ya?ml|toml|json|css|scss|sql|lua|pl|r)$/i
const highlight = (text, path) => {
  if (!CODE.test(path) || text.length > 2000) return [text]
  const hash = HASH_COMMENT.test(path)
  const pattern = hash
    ? /(#.*$)|("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?)|(\b\d[\d_.xXa-fA-F]*\b)|([A-Za-z_$][\w$]*)/g
    : /(\/\/.*$|\/\*.*?(?:\*\/|$))|("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|`(?:[^`\\]|\\.)*`?)|(\b\d[\d_.xXa-fA-F]*\b)|([A-Za-z_$][\w$]*)/g
  const out = []
  let last = 0
  for (const match of text.matchAll(pattern)) {
    const [whole, comment, string, number, ident] = match
    if (ident !== undefined && !KEYWORDS.has(ident)) continue
    if (match.index > last) out.push(text.slice(last, match.index))
    const cls =
      comment !== undefined ? "tok-c" : string !== undefined ? "tok-s" : number !== undefined ? "tok-n" : "tok-k"
    out.push(el("span", { class: cls }, whole))
    last = match.index + whole.length
  }
  if (last < text.length) out.push(text.slice(last))
  return out
}

// ---- diffs ----
/**
 * Splits a unified diff into files: {path, lines, binary, note}. A file starts at its `diff --git` header
 * (the edit tool's diffs have one per file) or, without one, at its `---`/`+++` pair. A binary file is the
 * header and one `Binary file …` line (the edit tool's) or git's `Binary files … differ` / `GIT binary patch`.
 */
const parseDiff = (text) => {
  const files = []
  let current
  let headerOnly = false
  const lines = text.split("\n")
  const start = (path) => {
    current = { path, lines: [], binary: false }
    files.push(current)
  }
  // Lines still due in the current hunk (from its @@ header): inside a hunk "--- x" is a removed line.
  let oldLeft = 0
  let newLeft = 0
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    if (current !== undefined && (oldLeft > 0 || newLeft > 0) && /^[ +\-\\]/.test(line)) {
      if (line[0] !== "+" && line[0] !== "\\") oldLeft--
      if (line[0] !== "-" && line[0] !== "\\") newLeft--
      current.lines.push(line)
      continue
    }
    const hunk = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line)
    if (hunk && current !== undefined) {
      oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1])
      newLeft = hunk[2] === undefined ? 1 : Number(hunk[2])
      headerOnly = false
      current.lines.push(line)
      continue
    }
    const git = /^diff --git a\/(.*) b\/(.*)$/.exec(line)
    if (git) {
      start(git[2])
      headerOnly = true
      continue
    }
    if (line.startsWith("--- ") && (lines[i + 1] ?? "").startsWith("+++ ")) {
      const from = line.slice(4).split("\t")[0]
      const to = lines[i + 1].slice(4).split("\t")[0]
      const path = (to === "/dev/null" ? from : to).replace(/^[ab]\//, "")
      if (!headerOnly) start(path)
      headerOnly = false
      i++
      continue
    }
    const edit = /^Binary file (.*) (created|deleted|changed) \((\d+) -> (\d+) bytes\)$/.exec(line)
    const gitBinary = /^Binary files (?:a\/)?(.*?) and (?:b\/)?(.*?) differ$/.exec(line)
    if (edit || gitBinary || line.startsWith("GIT binary patch")) {
      if (!headerOnly)
        start(edit ? edit[1] : gitBinary ? (gitBinary[2] === "/dev/null" ? gitBinary[1] : gitBinary[2]) : "binary file")
      current.binary = true
      current.note = edit
        ? `Binary file ${edit[2]}: ${edit[3]} → ${edit[4]} bytes; its contents are not shown.`
        : "Binary file: its contents are not shown."
      headerOnly = false
      continue
    }
    if (
      current === undefined ||
      /^(Index: |={10,}|new file|deleted file|old mode|new mode|similarity|rename |copy )/.test(line)
    )
      continue
    if (
      line.startsWith("@@") ||
      line.startsWith("+") ||
      line.startsWith("-") ||
      line.startsWith(" ") ||
      line.startsWith("\\")
    ) {
      headerOnly = false
      current.lines.push(line)
    }
  }
  return files
}

/** A file diff larger than this many lines is shown as a summary. */
const LARGE_LINES = 5000

const numbered = (lines) => {
  const rows = []
  let oldNo = 0
  let newNo = 0
  for (const line of lines) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)/.exec(line)
    if (hunk) {
      oldNo = Number(hunk[1])
      newNo = Number(hunk[2])
      rows.push({ type: "hunk", text: line })
    } else if (line.startsWith("+")) rows.push({ type: "add", text: line.slice(1), newNo: newNo++ })
    else if (line.startsWith("-")) rows.push({ type: "del", text: line.slice(1), oldNo: oldNo++ })
    else if (line.startsWith("\\")) rows.push({ type: "hunk", text: line })
    else rows.push({ type: "ctx", text: line.slice(1), oldNo: oldNo++, newNo: newNo++ })
  }
  return rows
}

const unifiedTable = (file, rows) =>
  el(
    "table",
    { class: "diff" },
    el("caption", { class: "skip" }, `Changes to ${file.path}`),
    el("colgroup", {}, el("col", { class: "n" }), el("col", { class: "n" }), el("col", {})),
    el(
      "tbody",
      {},
      rows.map((row) =>
        row.type === "hunk"
          ? el(
              "tr",
              { class: "hunk" },
              el("td", { class: "n" }),
              el("td", { class: "n" }),
              el("td", { class: "c" }, row.text)
            )
          : el(
              "tr",
              { class: row.type },
              el("td", { class: "n" }, row.oldNo === undefined ? "" : String(row.oldNo)),
              el("td", { class: "n" }, row.newNo === undefined ? "" : String(row.newNo)),
              el(
                "td",
                { class: "c", "aria-label": row.type === "add" ? "added" : row.type === "del" ? "removed" : undefined },
                row.type === "add" ? "+ " : row.type === "del" ? "- " : "  ",
                highlight(row.text, file.path)
              )
            )
      )
    )
  )

const splitTable = (file, rows) => {
  const pairs = []
  for (let i = 0; i < rows.length; ) {
    const row = rows[i]
    if (row.type === "del" || row.type === "add") {
      const dels = []
      const adds = []
      while (i < rows.length && rows[i].type === "del") dels.push(rows[i++])
      while (i < rows.length && rows[i].type === "add") adds.push(rows[i++])
      for (let k = 0; k < Math.max(dels.length, adds.length); k++) pairs.push([dels[k], adds[k]])
    } else {
      pairs.push(row.type === "hunk" ? [row, undefined, true] : [row, row])
      i++
    }
  }
  const side = (row, which) =>
    row === undefined
      ? [el("td", { class: "n" }), el("td", { class: "c" })]
      : [
          el("td", { class: "n" }, String((which === "old" ? row.oldNo : row.newNo) ?? "")),
          el(
            "td",
            {
              class: `c ${row.type === "ctx" ? "" : row.type}`,
              "aria-label": row.type === "add" ? "added" : row.type === "del" ? "removed" : undefined
            },
            highlight(row.text, file.path)
          )
        ]
  return el(
    "table",
    { class: "diff split" },
    el("caption", { class: "skip" }, `Changes to ${file.path}, old and new side by side`),
    el("colgroup", {}, el("col", { class: "n" }), el("col", {}), el("col", { class: "n" }), el("col", {})),
    el(
      "tbody",
      {},
      pairs.map(([left, right, hunk]) =>
        hunk
          ? el("tr", { class: "hunk" }, el("td", { colspan: "4" }, left.text))
          : el("tr", {}, side(left, "old"), side(right, "new"))
      )
    )
  )
}

const fileDiff = (file, info) => {
  const added = file.lines.filter((line) => line.startsWith("+")).length
  const removed = file.lines.filter((line) => line.startsWith("-")).length
  const change = info?.change
  const heading = el(
    "h4",
    {},
    info?.destructive || change === "delete"
      ? el("span", { class: "badge danger" }, change === "delete" ? "deletes" : "destructive")
      : undefined,
    change !== undefined ? el("span", { class: "badge" }, change) : undefined,
    file.path,
    ` (+${added} −${removed})`
  )
  if (file.binary)
    return el(
      "div",
      { class: "file" },
      heading,
      el("p", { class: "summary" }, file.note ?? "Binary file: its contents are not shown.")
    )
  if (file.lines.length > LARGE_LINES) {
    return el(
      "div",
      { class: "file" },
      heading,
      el(
        "p",
        { class: "summary" },
        `Large diff (${file.lines.length} lines, +${added} −${removed}): not drawn here; it is in the transaction's changes.diff.`
      )
    )
  }
  const rows = numbered(file.lines)
  return el(
    "div",
    { class: "file" },
    heading,
    state.view === "split" ? splitTable(file, rows) : unifiedTable(file, rows)
  )
}

const diffView = (text, files) => {
  const byPath = new Map((files ?? []).map((file) => [file.path, file]))
  const parsed = parseDiff(text)
  const drawn = new Set(parsed.map((file) => file.path))
  const extra = (files ?? []).filter((file) => !drawn.has(file.path))
  return el(
    "div",
    { class: "diffs" },
    parsed.map((file) => fileDiff(file, byPath.get(file.path))),
    extra.map((file) =>
      el(
        "div",
        { class: "file" },
        el("h4", {}, el("span", { class: "badge" }, file.change), file.path),
        el("p", { class: "summary" }, "No text diff (binary, a directory, or a move).")
      )
    )
  )
}

// ---- safe markdown (headings, lists, code, paragraphs; text nodes only) ----
const inline = (text) => {
  const out = []
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*/g
  let last = 0
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) out.push(text.slice(last, match.index))
    out.push(match[1] !== undefined ? el("code", {}, match[1]) : el("strong", {}, match[2]))
    last = match.index + match[0].length
  }
  if (last < text.length) out.push(text.slice(last))
  return out
}
const markdown = (text) => {
  const root = el("div", { class: "md" })
  let list
  let fence
  for (const line of text.split("\n")) {
    if (fence !== undefined) {
      if (/^```/.test(line)) {
        root.append(el("pre", {}, fence.join("\n")))
        fence = undefined
      } else fence.push(line)
      continue
    }
    if (/^```/.test(line)) {
      fence = []
      list = undefined
      continue
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line)
    const bullet = /^\s*[-*]\s+(.*)$/.exec(line)
    const ordered = /^\s*\d+[.)]\s+(.*)$/.exec(line)
    if (heading) {
      list = undefined
      root.append(el(`h${Math.min(6, heading[1].length + 2)}`, {}, inline(heading[2])))
    } else if (bullet || ordered) {
      const tag = bullet ? "ul" : "ol"
      if (list === undefined || list.tagName.toLowerCase() !== tag) {
        list = el(tag, {})
        root.append(list)
      }
      list.append(el("li", {}, inline((bullet ?? ordered)[1])))
    } else if (line.trim() === "") list = undefined
    else {
      list = undefined
      root.append(el("p", {}, inline(line)))
    }
  }
  if (fence !== undefined) root.append(el("pre", {}, fence.join("\n")))
  return root
}

// ---- cards ----
const facts = (pairs) =>
  el(
    "dl",
    { class: "facts" },
    pairs.filter(([, value]) => value !== undefined).map(([term, value]) => [el("dt", {}, term), el("dd", {}, value)])
  )

const allowMatch = (argv, allowlist) => {
  const exe = argv[0] ?? ""
  const base = exe.split("/").pop()
  if (allowlist.includes("*")) return `allowed ("*" allows any executable)`
  return allowlist.includes(exe) || allowlist.includes(base)
    ? `${base} is on the executable allowlist`
    : `${base} is NOT on the executable allowlist`
}

/** The commits a push sends (and a force push discards), each as its short SHA and subject. */
const commitList = (label, commits, more) =>
  el(
    "div",
    { class: "commits" },
    el("strong", {}, `${label} (${commits.length}${more ? "+" : ""})`),
    commits.length === 0
      ? el("p", { class: "meta" }, "none")
      : el(
          "ol",
          { "aria-label": label },
          commits.map((commit) =>
            el("li", {}, el("code", { title: commit.sha }, commit.sha.slice(0, 12)), " ", commit.subject)
          )
        ),
    more ? el("p", { class: "meta" }, "… and more (the list stops at 100).") : undefined
  )
const pushLists = (push) =>
  el(
    "div",
    {},
    push.error ? el("p", { class: "summary" }, `The commits could not be listed: ${push.error}`) : undefined,
    commitList(`Commits to be pushed to ${push.remote}/${push.branch}`, push.pushed, push.pushedMore),
    push.dropped.length > 0
      ? commitList(`Commits ${push.remote}/${push.branch} loses`, push.dropped, push.droppedMore)
      : undefined
  )

const body = (card, data) => {
  const record = card.record
  const prompt = record.prompt
  if (record.kind === "plan")
    return card.markdown !== undefined ? markdown(card.markdown) : el("p", {}, "(The plan's text is missing.)")
  if (prompt === undefined)
    return el("p", {}, record.resume ? `Runs ${record.resume.tool} ${JSON.stringify(record.resume.arguments)}` : "")
  switch (prompt._tag) {
    case "transaction":
      return el(
        "div",
        {},
        card.problem ? el("p", { class: "problem", role: "alert" }, card.problem) : undefined,
        card.destructiveReasons
          ? el(
              "div",
              { class: "destructive-reasons" },
              el("strong", {}, "Destructive: "),
              el(
                "ul",
                {},
                card.destructiveReasons.map((reason) => el("li", {}, reason))
              )
            )
          : undefined,
        facts([["Files", `${prompt.paths.length}: ${prompt.paths.join(", ")}`]]),
        card.diffCut
          ? el("p", { class: "summary" }, `The diff is cut here; all of it is in ${card.diffPath}.`)
          : undefined,
        diffView(card.diff ?? prompt.diff, card.files)
      )
    case "command":
      return facts([
        ["Command", el("code", {}, argvLine(prompt.argv))],
        ["In", prompt.cwd === "" ? "the workspace root" : prompt.cwd],
        ["Allowlist", allowMatch(prompt.argv, data.policy.executableAllowlist)],
        [
          "Sandbox",
          `commandSandbox ${data.policy.commandSandbox}; network ${data.policy.allowCommandNetwork ? "allowed" : "off"}`
        ]
      ])
    case "vcs": {
      // The git subcommand: the first word after git's global options (-c key=value pairs, --no-pager, ...).
      let at = 1
      while (at < prompt.argv.length && prompt.argv[at].startsWith("-"))
        at += prompt.argv[at] === "-c" || prompt.argv[at] === "-C" ? 2 : 1
      const sub = prompt.argv[at]
      const rest = prompt.argv.slice(at + 1)
      const dashes = rest.indexOf("--")
      const operands = dashes >= 0 ? rest.slice(dashes + 1) : rest.filter((word) => !word.startsWith("-"))
      const refs = prompt.refs.map((ref) => /^(\S+) (\S+) ([0-9a-f]+) -> ([0-9a-f]+)$/.exec(ref))
      const moves = refs
        .filter(Boolean)
        .map((m) => `${m[2].replace(/^refs\/heads\//, "")} on ${m[1]}: ${m[3].slice(0, 12)} → ${m[4].slice(0, 12)}`)
      const forced =
        prompt.argv.some((word) => /^(--force|--force-with-lease|-f)(=|$)/.test(word)) ||
        operands.some((word) => word.startsWith("+"))
      return el(
        "div",
        {},
        facts([
          ["Runs", el("code", {}, argvLine(prompt.argv))],
          ["Command", sub === undefined ? undefined : `${prompt.argv[0].split("/").pop()} ${sub}`],
          ["In", prompt.cwd === "" ? "the workspace root" : prompt.cwd],
          ["Remote", sub === "push" && operands.length > 0 ? operands[0] : undefined],
          ["Branch and commits", moves.length > 0 ? moves.join("; ") : undefined],
          ["Refs", prompt.refs.length > 0 && moves.length === 0 ? prompt.refs.join(", ") : undefined],
          ["Force", forced ? "YES: a force push rewrites the remote's history" : undefined]
        ]),
        card.push ? pushLists(card.push) : undefined
      )
    }
    case "web":
      return facts([
        prompt.url !== undefined ? ["Fetches", el("code", {}, prompt.url)] : ["Searches for", prompt.query ?? ""]
      ])
    case "browser":
      return facts([
        ["Session", prompt.session],
        ["Page", prompt.page === undefined ? "(not recorded: staged before pages were)" : el("code", {}, prompt.page)],
        ["Control", prompt.control]
      ])
    case "agent":
      return facts([
        ["Objective", prompt.objective],
        [
          "Reach",
          `${prompt.reach.commitEdits ? "commits its edits" : "edits stay planned"}; ${prompt.reach.commands ? "runs commands" : "no commands"}; ${prompt.reach.web ? "reaches the web" : "no web"}`
        ]
      ])
    default:
      return el("p", {}, "")
  }
}

const decideForm = (card) => {
  const id = card.record.id
  const note = el("input", { type: "text", name: "note", id: `note-${id}`, autocomplete: "off" })
  const reason = el("input", { type: "text", name: "reason", id: `reason-${id}`, autocomplete: "off" })
  const post = (verb, text, buttons) => decide(card, verb, text, buttons)
  const accept = el(
    "button",
    { type: "button", class: "accept", id: `accept-${id}`, "aria-describedby": `title-${id}` },
    `Accept ${id}`
  )
  const deny = el(
    "button",
    { type: "button", class: "deny", id: `deny-${id}`, "aria-describedby": `title-${id}` },
    `Deny ${id}`
  )
  accept.addEventListener("click", () => post("accept", note.value, [accept, deny]))
  deny.addEventListener("click", () => post("deny", reason.value, [accept, deny]))
  return el(
    "div",
    { class: "decide" },
    el("label", { for: `note-${id}` }, "Note (optional)", note),
    accept,
    el("label", { for: `reason-${id}` }, "Reason for denying", reason),
    deny
  )
}

const cardView = (card, data, now) => {
  const record = card.record
  const destructive = record.destructive === true
  return el(
    "article",
    {
      class: `card${destructive ? " destructive" : ""}`,
      "aria-labelledby": `title-${record.id}`,
      "data-id": record.id
    },
    el(
      "h3",
      { id: `title-${record.id}` },
      destructive ? el("span", { class: "badge danger" }, "Destructive") : undefined,
      el("span", { class: "badge" }, record.kind),
      record.title
    ),
    el(
      "p",
      { class: "meta" },
      `${record.id} · ${record.status === "pending" ? "staged" : record.status} ${ago(record.createdAt, now)} · expires ${until(card.expiresAt, now)}`,
      record.tool ? ` · ${record.tool}${record.operation ? ` (${record.operation})` : ""}` : "",
      record.revision ? ` · revision ${record.revision}` : ""
    ),
    body(card, data),
    record.status === "pending"
      ? decideForm(card)
      : el(
          "p",
          { class: "meta" },
          `Approved ${record.decidedAt ? ago(record.decidedAt, now) : ""}${record.note ? `: ${record.note}` : ""}`
        )
  )
}

// ---- timeline ----
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

const timeline = (data) => {
  const changes = data.changes ?? {}
  const items = []
  const when = (entry) => entry.committedAt ?? entry.startedAt ?? entry.at ?? entry.createdAt ?? entry.updatedAt ?? ""
  for (const tx of changes.transactions ?? [])
    items.push({
      at: when(tx),
      node: () =>
        el(
          "li",
          {},
          el("span", { class: "badge" }, "transaction"),
          `${tx.id} ${tx.status ?? ""} · ${tx.fileCount ?? (tx.files ?? []).length} file(s): ${(tx.files ?? []).join(", ")}`,
          txDiff(tx)
        )
    })
  // Version control: every recorded operation (commit, push, branch, checkout, ...), its commit and branch.
  for (const entry of changes.vcs ?? []) {
    const op = String(entry.operation ?? "vcs")
      .replace(/^vcs\./, "")
      .replace(/_/g, " ")
    items.push({
      at: when(entry),
      node: () =>
        el(
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
    })
  }
  // Live tails go to the newest running jobs (nodes are built newest first, after the sort below).
  let live = [...state.tails.values()].filter(
    (entry) => entry.source !== undefined && entry.source.readyState !== 2
  ).length
  const liveSlot = (job) => job.status === "running" && !state.tails.has(job.id) && live < MAX_LIVE_TAILS && ++live > 0
  for (const job of changes.jobs ?? [])
    items.push({
      at: when(job),
      node: () =>
        el(
          "li",
          {},
          el("span", { class: "badge" }, "job"),
          `${job.id} ${job.status} · ${job.executable ?? ""}${job.exitCode === undefined || job.exitCode === null ? "" : ` · exit ${job.exitCode}`}`,
          jobTail(job, liveSlot(job))
        )
    })
  for (const run of changes.runs ?? [])
    items.push({
      at: when(run),
      node: () =>
        el(
          "li",
          {},
          el("span", { class: "badge" }, "run"),
          `${run.runId} ${run.status} · ${run.mode ?? ""} · ${run.objective ?? ""}`,
          el("span", { class: "meta" }, ` · ${run.statePath ?? ""}`)
        )
    })
  for (const project of data.research ?? [])
    items.push({
      at: project.updatedAt,
      node: () =>
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
    })
  for (const board of data.boards ?? [])
    items.push({
      at: "",
      node: () =>
        el(
          "li",
          {},
          el("span", { class: "badge" }, "task board"),
          board.title,
          board.problem ? el("p", { class: "problem", role: "alert" }, board.problem) : undefined,
          graph(board)
        )
    })
  items.sort((a, b) => String(b.at).localeCompare(String(a.at)))
  return items.length === 0
    ? el("p", {}, "Nothing has happened yet.")
    : el(
        "ol",
        { class: "timeline" },
        items.map((item) => item.node())
      )
}

// ---- loading, deciding, live updates ----
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
      : data.pending.map((card) => cardView(card, data, now)))
  )
  const plans = document.getElementById("plan-list")
  plans.replaceChildren(
    ...(data.plans.length === 0
      ? [el("p", {}, "No plan is pending or approved.")]
      : data.plans.map((card) => cardView(card, data, now)))
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
