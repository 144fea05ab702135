// The review page's cards: one per pending approval or plan, with what it would do (the diff, the command,
// the git operation and its commits, the URL, ...) and the form to accept or deny it.

import { ago, argvLine, el, until } from "./dom.js"
import { diffView } from "./diff.js"
import { markdown } from "./markdown.js"

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

/** What a staged transaction would change: its problem, why it is destructive, its files and its diff. */
const transactionBody = (card, prompt) =>
  el(
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
    card.diffCut ? el("p", { class: "summary" }, `The diff is cut here; all of it is in ${card.diffPath}.`) : undefined,
    diffView(card.diff ?? prompt.diff, card.files)
  )

/** What a staged command would run: its argv, where, the allowlist's verdict and the sandbox. */
const commandBody = (prompt, data) =>
  facts([
    ["Command", el("code", {}, argvLine(prompt.argv))],
    ["In", prompt.cwd === "" ? "the workspace root" : prompt.cwd],
    ["Allowlist", allowMatch(prompt.argv, data.policy.executableAllowlist)],
    [
      "Sandbox",
      `commandSandbox ${data.policy.commandSandbox}; network ${data.policy.allowCommandNetwork ? "allowed" : "off"}`
    ]
  ])

/** What a staged git operation would do: the subcommand, the remote, the refs it moves, a force, the commits. */
const vcsBody = (card, prompt) => {
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

/** What a card asks the user to decide, by the kind of its record's typed prompt. */
const body = (card, data) => {
  const record = card.record
  const prompt = record.prompt
  if (record.kind === "plan")
    return card.markdown !== undefined ? markdown(card.markdown) : el("p", {}, "(The plan's text is missing.)")
  if (prompt === undefined)
    return el("p", {}, record.resume ? `Runs ${record.resume.tool} ${JSON.stringify(record.resume.arguments)}` : "")
  switch (prompt._tag) {
    case "transaction":
      return transactionBody(card, prompt)
    case "command":
      return commandBody(prompt, data)
    case "vcs":
      return vcsBody(card, prompt)
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

const decideForm = (card, decide) => {
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

export const cardView = (card, data, now, decide) => {
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
      ? decideForm(card, decide)
      : el(
          "p",
          { class: "meta" },
          `Approved ${record.decidedAt ? ago(record.decidedAt, now) : ""}${record.note ? `: ${record.note}` : ""}`
        )
  )
}
