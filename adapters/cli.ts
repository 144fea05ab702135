/**
 * The `agentic-workspace` command line, shared by the Node and Deno hosts: each host passes its own
 * way to open a workspace and to write output. Verbs take `--root DIR` and `--set key=value` anywhere.
 */
import { type Prompt, promptLines } from "../core/gate/prompt.ts"
import { failure } from "../core/protocol/envelope.ts"
import { toolError } from "../core/protocol/errors.ts"
import { blockLine, formatCommand } from "../core/gate/preprocess.ts"
import { age, clipBytes, type ApprovalRecord } from "../core/gate/records.ts"
import type { WorkspaceRuntime } from "../core/runtime.ts"
import { modeLabel, parseSettingValue } from "../core/settings/settings.ts"
import type { OpenFailure, Session } from "./open.ts"
import { recordDetails } from "./approvalDetails.ts"
import { differingSettings, readHostState } from "./hostState.ts"
import { shellWord, terminalCommand } from "./mcp/decide.ts"
import { USAGE, VERB_HELP } from "./cliHelp.ts"
import { VERSION } from "./version.ts"
import { workspacesVerb } from "./workspacesVerb.ts"

export type { OpenFailure } from "./open.ts"

/** What a host gives the CLI. */
export interface CliHost {
  readonly cwd: string
  /** Opens the workspace at `root` as a Session (which says when it could not open). */
  readonly open: (root: string, settings: Record<string, unknown>) => Promise<Session>
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  /** Extra verbs a host serves (e.g. `mcp`), given the parsed line. */
  readonly verbs?: Record<string, (line: ParsedLine, host: CliHost) => Promise<number>>
  /** All of standard input, for `call TOOL -` (hosts without it refuse that form). */
  readonly readStdin?: () => Promise<string>
  /** A file's text, for `call TOOL @file.json` (relative to cwd). */
  readonly readFile?: (path: string) => Promise<string>
  /** Whether a process still runs (a host.json left by a crashed server is then not reported as running). */
  readonly isRunning?: (pid: number) => boolean
}

/** A parsed command line. */
export interface ParsedLine {
  readonly verb: string | undefined
  readonly positional: ReadonlyArray<string>
  readonly root: string
  /** True when --root was given (else root is the current directory). */
  readonly rootGiven: boolean
  readonly settings: Record<string, unknown>
  readonly flags: Record<string, string | true>
  readonly errors: ReadonlyArray<string>
}

/** Flags that take a value (besides --root and --set). */
const VALUE_FLAGS = new Set([
  "--http",
  "--port",
  "--host",
  "--limit",
  "--offset",
  "--request-id",
  "--project",
  "--token",
  "--review-port",
  "--runs",
  "--seed",
  "--plant-fault"
])

/** Parses argv (without node and script): the verb, positionals, --root, --set, other flags. */
export const parseLine = (argv: ReadonlyArray<string>, cwd: string): ParsedLine => {
  const positional: Array<string> = []
  const settings: Record<string, unknown> = {}
  const flags: Record<string, string | true> = {}
  const errors: Array<string> = []
  let root = cwd
  let rootGiven = false
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined]
    const value = () => {
      if (inline !== undefined) return inline
      const next = argv[index + 1]
      if (next === undefined) {
        errors.push(`${flag} needs a value`)
        return undefined
      }
      index++
      return next
    }
    if (flag === "--root") {
      const given = value()
      if (given !== undefined) {
        root = given.startsWith("/") ? given : `${cwd.replace(/\/$/, "")}/${given}`
        rootGiven = true
      }
    } else if (flag === "--set") {
      const pair = value()
      if (pair === undefined) continue
      const at = pair.indexOf("=")
      if (at <= 0) errors.push(`--set takes key=value, got "${pair}"`)
      else settings[pair.slice(0, at)] = parseSettingValue(pair.slice(0, at), pair.slice(at + 1))
    } else if (VALUE_FLAGS.has(flag)) {
      const given = value()
      if (given !== undefined) flags[flag.slice(2)] = given
    } else if (arg.startsWith("--") && arg.length > 2) {
      flags[flag.slice(2)] = inline ?? true
    } else if (arg === "-h") {
      flags["help"] = true
    } else positional.push(arg)
  }
  return { verb: positional[0], positional: positional.slice(1), root, rootGiven, settings, flags, errors }
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`

const withWorkspace = async (
  line: ParsedLine,
  host: CliHost,
  use: (session: Session) => Promise<number>,
  onFailure?: (failure: OpenFailure, session: Session) => Promise<number> | number
): Promise<number> => {
  const session = await host.open(line.root, line.settings)
  try {
    if (session.failure !== undefined) {
      if (onFailure !== undefined) return await onFailure(session.failure, session)
      host.stderr(`agentic-workspace: ${session.failure.reason}. ${session.failure.repair}\n`)
      return 2
    }
    return await use(session)
  } finally {
    await session.close()
  }
}

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

const verbs: Record<string, (line: ParsedLine, host: CliHost) => Promise<number>> = {
  help: async (_line, host) => {
    host.stdout(USAGE)
    return 0
  },
  call: async (line, host) => {
    const [tool, raw] = line.positional
    if (tool === undefined) {
      host.stdout(
        json(
          failure(
            "cli.call",
            toolError(
              "INVALID_INPUT",
              'call needs a tool name and a JSON argument: agentic-workspace call workspace_notes \'{"action":"list"}\' (or - for stdin, @FILE for a file).'
            )
          )
        )
      )
      return 1
    }
    const refuse = (message: string) => {
      host.stdout(json(failure(`${tool}.call`, toolError("INVALID_INPUT", message))))
      return 1
    }
    let text = raw ?? "{}"
    try {
      if (raw === "-") {
        if (host.readStdin === undefined) throw new Error("this host cannot read standard input")
        text = await host.readStdin()
      } else if (raw?.startsWith("@") === true) {
        if (host.readFile === undefined) throw new Error("this host cannot read files")
        text = await host.readFile(raw.slice(1))
      }
    } catch (error) {
      return refuse(
        `The arguments could not be read (${error instanceof Error ? error.message.split("\n")[0] : String(error)}); pass one JSON object inline, with - on stdin, or as @FILE.`
      )
    }
    let args: unknown
    try {
      args = JSON.parse(text)
    } catch (error) {
      return refuse(
        `The arguments are not valid JSON (${error instanceof Error ? error.message : String(error)}); pass one JSON object.`
      )
    }
    return withWorkspace(
      line,
      host,
      async (session) => {
        const envelope = await session.call(tool, args)
        host.stdout(json(envelope))
        return envelope.ok ? 0 : 1
      },
      async (opened, session) => {
        const envelope =
          opened.kind === "settings"
            ? failure(`${tool}.call`, toolError("INVALID_INPUT", `${opened.reason}. ${opened.repair}`))
            : await session.call(tool, args)
        host.stdout(json(envelope))
        // A refused --set is a usage error of the command line (exit 2, as every verb), not a tool's answer.
        return opened.kind === "settings" ? 2 : 1
      }
    )
  },
  tools: async (line, host) =>
    withWorkspace(
      line,
      host,
      async (session) => {
        host.stdout(
          json(session.tools().map(({ name, description, inputSchema }) => ({ name, description, inputSchema })))
        )
        return 0
      },
      (opened, session) => {
        if (opened.kind === "settings") {
          host.stderr(`agentic-workspace: ${opened.reason}. ${opened.repair}\n`)
          return 2
        }
        host.stdout(
          json(session.tools().map(({ name, description, inputSchema }) => ({ name, description, inputSchema })))
        )
        return 0
      }
    ),
  approvals: async (line, host) =>
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
    }),
  accept: (line, host) => decideVerb("accept", line, host),
  deny: (line, host) => decideVerb("deny", line, host),
  workspaces: (line, host) => workspacesVerb(line, host, host.open)
}

const decideVerb = (verb: "accept" | "deny", line: ParsedLine, host: CliHost) =>
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

/** The flags (besides --root, --set and --help) of the verbs that refuse any other. */
export const VERB_FLAGS: Record<string, ReadonlyArray<string>> = {
  mcp: ["http", "token", "review-port"]
}

/** Runs one command line; resolves to the exit code. */
export const runCli = async (argv: ReadonlyArray<string>, host: CliHost): Promise<number> => {
  const line = parseLine(argv, host.cwd)
  if (line.errors.length > 0) {
    host.stderr(`agentic-workspace: ${line.errors.join("; ")}\n\n${USAGE}`)
    return 2
  }
  if (line.verb === undefined && line.flags["version"] === true) {
    host.stdout(`${VERSION}\n`)
    return 0
  }
  const verb = line.verb ?? "help"
  const handler = host.verbs?.[verb] ?? verbs[verb]
  // --help (or -h) on any verb prints its help and does nothing else: no workspace is opened, no server starts.
  if (line.flags["help"] === true && (handler !== undefined || VERB_HELP[verb] !== undefined)) {
    host.stdout(VERB_HELP[verb] ?? USAGE)
    return 0
  }
  if (handler === undefined) {
    host.stderr(`agentic-workspace: unknown verb "${verb}".\n\n${USAGE}`)
    return 2
  }
  // A flag the verb does not know is refused before anything opens or serves, never ignored (a mistyped
  // --http would otherwise serve stdio).
  const known = VERB_FLAGS[verb]
  const unknown = known === undefined ? [] : Object.keys(line.flags).filter((flag) => !known.includes(flag))
  if (unknown.length > 0) {
    host.stderr(
      `agentic-workspace: ${verb} does not take --${unknown.join(", --")}; it takes ${known!.length === 0 ? "no flags" : `--${known!.join(", --")}`} besides --root and --set.\n\n${VERB_HELP[verb] ?? USAGE}`
    )
    return 2
  }
  return handler(line, host)
}
