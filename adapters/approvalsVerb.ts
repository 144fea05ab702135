/** The `approvals`, `accept` and `deny` verbs, loaded on their first use (a `call` never evaluates them). */
import { type Prompt, promptLines } from "../core/gate/prompt.ts"
import { blockLine, formatCommand } from "../core/gate/preprocess.ts"
import { age, clipBytes, type ApprovalRecord } from "../core/gate/records.ts"
import type { WorkspaceRuntime } from "../core/runtime.ts"
import { modeLabel } from "../core/settings/settings.ts"
import { recordDetails } from "./approvalDetails.ts"
import type { CliHost } from "./cli.ts"
import type { ParsedLine } from "./cliLine.ts"
import { json, withWorkspace } from "./cliWorkspace.ts"
import { differingSettings, readHostState } from "./hostState.ts"
import { shellWord, terminalCommand } from "./mcp/decide.ts"
import type { Session } from "./open.ts"

const describe = (record: ApprovalRecord, now: number) =>
  `${record.id} [${record.kind}] ${blockLine(record.title, 60)} (${record.status === "pending" ? "staged" : record.status} ${age(record.decidedAt ?? record.createdAt, now)})`

/** What the user is deciding, on one line, from the record's typed prompt: files, argv, URL. */
const promptSubject = (prompt: Prompt): string => {
  const argv = (words: ReadonlyArray<string>, cwd: string) =>
    `argv: ${words.map(shellWord).join(" ")}${cwd === "" ? "" : ` (in ${cwd})`}`
  switch (prompt._tag) {
    case "transaction":
      return `files: ${prompt.paths.slice(0, 10).join(", ")}${prompt.paths.length > 10 ? `, … (${prompt.paths.length - 10} more)` : ""}`
    case "command":
      return argv(prompt.argv, prompt.cwd)
    case "vcs":
      return `${argv(prompt.argv, prompt.cwd)}${prompt.refs.length > 0 ? `; refs: ${prompt.refs.join(", ")}` : ""}`
    case "web":
      return prompt.url !== undefined ? `URL: ${prompt.url}` : `web search: ${prompt.query ?? ""}`
    case "browser":
      return `browser session ${prompt.session}: ${prompt.control}`
    case "agent":
      return `sub-agent: ${clipBytes(prompt.objective, 120)}`
  }
}

/** What the user is deciding, on one line: the typed prompt when the record has one, else what the stored records tell. */
const subject = (record: ApprovalRecord, details: Awaited<ReturnType<typeof recordDetails>>): string | undefined => {
  if (record.prompt !== undefined) return promptSubject(record.prompt)
  if (details.files !== undefined)
    return `files: ${details.files.slice(0, 10).join(", ")}${details.files.length > 10 ? `, … (${details.files.length - 10} more)` : ""}`
  if (details.argv !== undefined)
    return `argv: ${details.argv.map(shellWord).join(" ")}${details.cwd === undefined ? "" : ` (in ${details.cwd})`}`
  if (details.url !== undefined) return `URL: ${details.url}`
  return undefined
}

/** The mode lines: the running server's mode from .agentic/host.json, and a warning when this command's settings differ. */
const modeLines = async (runtime: WorkspaceRuntime, host: CliHost): Promise<Array<string>> => {
  const recorded = await readHostState(runtime)
  const gone = recorded?.pid !== undefined && host.isRunning?.(recorded.pid) === false
  const state = gone ? undefined : recorded
  if (gone) {
    return [
      `Permission mode: ${modeLabel(runtime.settings.permissionMode)}. (.agentic/host.json names server pid ${recorded!.pid}, which no longer runs: these are this command's settings.)`
    ]
  }
  if (state === undefined)
    return [
      `Permission mode: ${modeLabel(runtime.settings.permissionMode)}. (No running server is recorded in .agentic/host.json: these are this command's settings.)`
    ]
  const lines = [
    `Permission mode: ${modeLabel(state.settings.permissionMode)}. (The running ${state.host} server's, from .agentic/host.json: ${state.transport}${state.pid === undefined ? "" : `, pid ${state.pid}`}, started ${state.startedAt}.)`
  ]
  const differ = differingSettings(state.settings, runtime.settings)
  if (differ.length > 0) {
    lines.push(
      `Warning: this command runs with settings that differ from the server's (${differ.map((key) => `${key}: server ${JSON.stringify(state.settings[key])}, here ${JSON.stringify(runtime.settings[key])}`).join("; ")}); deciding is the same, but pass the server's --set flags to see its rules.`
    )
  }
  return lines
}

const approvalsShow = async (
  line: ParsedLine,
  host: CliHost,
  session: Session,
  runtime: WorkspaceRuntime
): Promise<number> => {
  const id = line.positional[1]
  const records = await session.approvals()
  const record = records.find((candidate) => candidate.id === id)
  if (record === undefined) {
    host.stderr(
      `agentic-workspace: no approval or plan ${id ?? "(no id given)"}. agentic-workspace approvals lists them.\n`
    )
    return 1
  }
  const details = await recordDetails(runtime, record)
  const out = [
    `${record.id} [${record.kind}] ${record.title}`,
    `Status: ${record.status}${record.decidedAt === undefined ? "" : ` (${record.decidedAt})`}; staged ${age(record.createdAt, Date.now())}; destructive: ${record.destructive === true ? "YES" : "no"}.`
  ]
  if (record.note !== undefined) out.push(`Note: ${record.note}`)
  if (record.reason !== undefined) out.push(`Reason: ${record.reason}`)
  const what = subject(record, details)
  if (what !== undefined) out.push(what.charAt(0).toUpperCase() + what.slice(1))
  if (record.resume !== undefined) out.push(`Runs: ${record.resume.tool} ${JSON.stringify(record.resume.arguments)}`)
  if (details.diff !== undefined) out.push("", details.diff.trimEnd())
  else if (record.prompt !== undefined) out.push("", ...promptLines(record.prompt, Number.MAX_SAFE_INTEGER))
  if (details.plan !== undefined) out.push("", details.plan.trimEnd())
  if (record.status === "pending")
    out.push(
      "",
      `Decide: ${terminalCommand("accept", record.id, runtime.info.root)} (or ${terminalCommand("deny", record.id, runtime.info.root)})`
    )
  host.stdout(`${out.join("\n")}\n`)
  return 0
}

/** `approvals`: what is pending and decided (or `approvals show ID`, one record in full). */
export const approvalsVerb = (line: ParsedLine, host: CliHost): Promise<number> =>
  withWorkspace(line, host, async (session) => {
    const runtime = session.runtime!
    if (line.positional[0] === "show") return approvalsShow(line, host, session, runtime)
    const records = (await session.approvals()).filter(
      (record) => record.status === "pending" || record.status === "approved" || record.status === "denied"
    )
    if (line.flags["json"] === true) {
      host.stdout(json(records))
      return 0
    }
    const now = Date.now()
    const pending = records.filter((record) => record.status === "pending")
    const out = await modeLines(runtime, host)
    if (pending.length === 0) out.push("Nothing is pending.")
    else {
      out.push("Pending, newest first (a bare accept decides #1; approvals show ID prints one in full):")
      for (const [index, record] of pending.entries()) {
        const details = await recordDetails(runtime, record)
        const what = subject(record, details)
        out.push(`  ${index + 1}. ${record.id} [${record.kind}] ${clipBytes(record.title, 60)}`)
        out.push(
          `     ${[what, `destructive: ${record.destructive === true ? "YES" : "no"}`, `staged ${age(record.createdAt, now)}`].filter((part) => part !== undefined).join("; ")}`
        )
      }
      out.push(`Decide: ${terminalCommand("accept", "ID", runtime.info.root)} (or deny ID REASON)`)
    }
    const decided = records.filter((record) => record.status !== "pending")
    if (decided.length > 0) {
      out.push("Decided and still live:")
      for (const record of decided) out.push(`  - ${describe(record, now)}`)
    }
    host.stdout(`${out.join("\n")}\n`)
    return 0
  })

/** `accept` and `deny`: the same command the user would type in chat, through the preprocessor. */
export const decideVerb = (verb: "accept" | "deny", line: ParsedLine, host: CliHost) =>
  withWorkspace(line, host, async (session) => {
    const [first, ...rest] = line.positional
    const hasId = first !== undefined && /^(approval|plan)_[A-Za-z0-9]+$/.test(first)
    const words = hasId ? rest : line.positional
    const message = formatCommand({
      verb,
      ...(hasId ? { id: first } : {}),
      ...(words.length > 0 ? { text: words.join(" ") } : {})
    })
    const result = await session.preprocess(message)
    host.stdout(`${result.text}\n`)
    return result.decided === undefined ? 1 : 0
  })
