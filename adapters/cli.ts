/**
 * The `agentic-workspace` command line, shared by the Node and Deno hosts: each host passes its own
 * way to open a workspace and to write output. Verbs take `--root DIR` and `--set key=value` anywhere.
 */
import { promptLines } from "../core/gate/prompt.ts"
import { failure } from "../core/protocol/envelope.ts"
import { toolError } from "../core/protocol/errors.ts"
import { formatCommand } from "../core/gate/preprocess.ts"
import { age, clipBytes, type ApprovalRecord } from "../core/gate/records.ts"
import { modeLabel, parseSettingValue } from "../core/settings/settings.ts"
import type { OpenFailure, Session } from "./open.ts"

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
}

/** A parsed command line. */
export interface ParsedLine {
  readonly verb: string | undefined
  readonly positional: ReadonlyArray<string>
  readonly root: string
  readonly settings: Record<string, unknown>
  readonly flags: Record<string, string | true>
  readonly errors: ReadonlyArray<string>
}

/** Flags that take a value (besides --root and --set). */
const VALUE_FLAGS = new Set(["--http", "--port", "--host", "--limit", "--offset", "--request-id", "--project", "--token"])

/** Parses argv (without node and script): the verb, positionals, --root, --set, other flags. */
export const parseLine = (argv: ReadonlyArray<string>, cwd: string): ParsedLine => {
  const positional: Array<string> = []
  const settings: Record<string, unknown> = {}
  const flags: Record<string, string | true> = {}
  const errors: Array<string> = []
  let root = cwd
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined]
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
      if (given !== undefined) root = given.startsWith("/") ? given : `${cwd.replace(/\/$/, "")}/${given}`
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
    } else positional.push(arg)
  }
  return { verb: positional[0], positional: positional.slice(1), root, settings, flags, errors }
}

/** The help text. */
export const USAGE = `agentic-workspace: workspace tools for LLM agents, gated by your permission mode.

Usage: agentic-workspace <verb> [arguments] [--root DIR] [--set key=value]...

  mcp [--http PORT]        serve the tools over MCP (stdio, or Streamable HTTP on 127.0.0.1)
  call TOOL 'JSON'         run one tool call; prints one envelope (exit 0 ok, 1 not ok)
  tools                    list the registered tools as JSON
  approvals [--json]       pending and approved records, newest first
  accept [ID] [NOTE...]    approve a pending record (without ID: the newest pending one)
  deny [ID] [REASON...]    deny a pending record (without ID: the newest pending one)
  host                     the runtime and host this command runs on, as JSON
  help                     this text

--root defaults to the current directory. --set takes any setting by key (e.g. --set permissionMode=0,
--set executableAllowlist=git,node); values are read as JSON when they parse, else as strings.
`

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
  `${record.id} [${record.kind}] ${clipBytes(record.title, 60)} (${record.status === "pending" ? "staged" : record.status} ${age(record.decidedAt ?? record.createdAt, now)})`

/** What a pending record asks, indented under its line (the diff clipped for a terminal). */
const promptText = (record: ApprovalRecord): ReadonlyArray<string> =>
  record.prompt === undefined ? [] : promptLines(record.prompt, 1500).flatMap((text) => text.split("\n")).map((text) => `       ${text}`)

const verbs: Record<string, (line: ParsedLine, host: CliHost) => Promise<number>> = {
  help: async (_line, host) => {
    host.stdout(USAGE)
    return 0
  },
  call: async (line, host) => {
    const [tool, raw] = line.positional
    if (tool === undefined) {
      host.stdout(json(failure("cli.call", toolError("INVALID_INPUT", "call needs a tool name and a JSON argument: agentic-workspace call workspace_notes '{\"action\":\"list\"}'."))))
      return 1
    }
    let args: unknown
    try {
      args = JSON.parse(raw ?? "{}")
    } catch (error) {
      host.stdout(json(failure(`${tool}.call`, toolError("INVALID_INPUT", `The arguments are not valid JSON (${error instanceof Error ? error.message : String(error)}); pass one JSON object.`))))
      return 1
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
        const envelope = opened.kind === "settings" ? failure(`${tool}.call`, toolError("INVALID_INPUT", `${opened.reason}. ${opened.repair}`)) : await session.call(tool, args)
        host.stdout(json(envelope))
        return 1
      }
    )
  },
  tools: async (line, host) =>
    withWorkspace(
      line,
      host,
      async (session) => {
        host.stdout(json(session.tools().map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))))
        return 0
      },
      (opened, session) => {
        if (opened.kind === "settings") {
          host.stderr(`agentic-workspace: ${opened.reason}. ${opened.repair}\n`)
          return 2
        }
        host.stdout(json(session.tools().map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))))
        return 0
      }
    ),
  approvals: async (line, host) =>
    withWorkspace(line, host, async (session) => {
      const records = (await session.approvals()).filter((record) => record.status === "pending" || record.status === "approved" || record.status === "denied")
      if (line.flags["json"] === true) {
        host.stdout(json(records))
        return 0
      }
      const now = Date.now()
      const pending = records.filter((record) => record.status === "pending")
      const out = [`Permission mode: ${modeLabel(session.settings!.permissionMode)}.`]
      if (pending.length === 0) out.push("Nothing is pending.")
      else {
        out.push("Pending, newest first (a bare accept decides #1):")
        for (const [index, record] of pending.entries()) out.push(`  ${index + 1}. ${describe(record, now)}`, ...promptText(record))
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
  deny: (line, host) => decideVerb("deny", line, host)
}

const decideVerb = (verb: "accept" | "deny", line: ParsedLine, host: CliHost) =>
  withWorkspace(line, host, async (session) => {
    const [first, ...rest] = line.positional
    const hasId = first !== undefined && /^(approval|plan)_[A-Za-z0-9]+$/.test(first)
    const words = hasId ? rest : line.positional
    const message = formatCommand({ verb, ...(hasId ? { id: first } : {}), ...(words.length > 0 ? { text: words.join(" ") } : {}) })
    const result = await session.preprocess(message)
    host.stdout(`${result.text}\n`)
    return result.decided === undefined ? 1 : 0
  })

/** Runs one command line; resolves to the exit code. */
export const runCli = async (argv: ReadonlyArray<string>, host: CliHost): Promise<number> => {
  const line = parseLine(argv, host.cwd)
  if (line.errors.length > 0) {
    host.stderr(`agentic-workspace: ${line.errors.join("; ")}\n\n${USAGE}`)
    return 2
  }
  const verb = line.verb ?? "help"
  const handler = host.verbs?.[verb] ?? verbs[verb]
  if (handler === undefined) {
    host.stderr(`agentic-workspace: unknown verb "${verb}".\n\n${USAGE}`)
    return 2
  }
  return handler(line, host)
}
