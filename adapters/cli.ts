/**
 * The `agentic-workspace` command line, shared by the Node and Deno hosts: each host passes its own
 * way to open a workspace and to write output. Verbs take `--root DIR` and `--set key=value` anywhere.
 */
import { failure } from "../core/protocol/envelope.ts"
import { toolError } from "../core/protocol/errors.ts"
import { json, withWorkspace } from "./cliWorkspace.ts"
import type { Session } from "./open.ts"
import { type ParsedLine, parseLine } from "./cliLine.ts"
import { VERSION } from "./version.ts"

export type { OpenFailure } from "./open.ts"
export { type ParsedLine, parseLine } from "./cliLine.ts"

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

const verbs: Record<string, (line: ParsedLine, host: CliHost) => Promise<number>> = {
  help: async (_line, host) => {
    host.stdout((await cliHelp()).USAGE)
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
  // The verbs `call` does not use load on their first use, so a call evaluates none of their modules.
  approvals: async (line, host) => (await import("./approvalsVerb.ts")).approvalsVerb(line, host),
  accept: async (line, host) => (await import("./approvalsVerb.ts")).decideVerb("accept", line, host),
  deny: async (line, host) => (await import("./approvalsVerb.ts")).decideVerb("deny", line, host),
  workspaces: async (line, host) => (await import("./workspacesVerb.ts")).workspacesVerb(line, host, host.open)
}

/** The flags (besides --root, --set and --help) of the verbs that refuse any other. */
export const VERB_FLAGS: Record<string, ReadonlyArray<string>> = {
  mcp: ["http", "token", "review-port"]
}

/** The help texts, loaded when a line asks for them or is refused. */
const cliHelp = () => import("./cliHelp.ts")

/** Runs one command line; resolves to the exit code. */
export const runCli = (argv: ReadonlyArray<string>, host: CliHost): Promise<number> =>
  runCliLine(parseLine(argv, host.cwd), host)

/** Runs a command line already parsed (the Node entry parses it first, to start the sandbox probe early). */
export const runCliLine = async (line: ParsedLine, host: CliHost): Promise<number> => {
  if (line.errors.length > 0) {
    host.stderr(`agentic-workspace: ${line.errors.join("; ")}\n\n${(await cliHelp()).USAGE}`)
    return 2
  }
  if (line.verb === undefined && line.flags["version"] === true) {
    host.stdout(`${VERSION}\n`)
    return 0
  }
  const verb = line.verb ?? "help"
  const handler = host.verbs?.[verb] ?? verbs[verb]
  // --help (or -h) on any verb prints its help and does nothing else: no workspace is opened, no server starts.
  if (line.flags["help"] === true) {
    const { USAGE, VERB_HELP } = await cliHelp()
    if (handler !== undefined || VERB_HELP[verb] !== undefined) {
      host.stdout(VERB_HELP[verb] ?? USAGE)
      return 0
    }
  }
  if (handler === undefined) {
    host.stderr(`agentic-workspace: unknown verb "${verb}".\n\n${(await cliHelp()).USAGE}`)
    return 2
  }
  // A flag the verb does not know is refused before anything opens or serves, never ignored (a mistyped
  // --http would otherwise serve stdio).
  const known = VERB_FLAGS[verb]
  const unknown = known === undefined ? [] : Object.keys(line.flags).filter((flag) => !known.includes(flag))
  if (unknown.length > 0) {
    const { USAGE, VERB_HELP } = await cliHelp()
    host.stderr(
      `agentic-workspace: ${verb} does not take --${unknown.join(", --")}; it takes ${known!.length === 0 ? "no flags" : `--${known!.join(", --")}`} besides --root and --set.\n\n${VERB_HELP[verb] ?? USAGE}`
    )
    return 2
  }
  return handler(line, host)
}
