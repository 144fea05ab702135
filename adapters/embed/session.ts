/**
 * `openWorkspace`: the embedding API's one way in. It chooses the host at start-up (`auto` detects Deno or
 * Node; `memory` is the in-memory host for an embedder's own tests), opens the workspace through the same
 * `openWith` as the CLI and the MCP server, and returns a Session: the tools, one call entry point that
 * always yields an envelope, the prompt preprocessor (`/accept`, `/deny`), the approval records and the
 * host's own decision channel. Opening fails with an `OpenWorkspaceError` whose `code` is INVALID_INPUT
 * (an unknown setting key or a bad value) or RUNTIME_UNAVAILABLE (a host this runtime cannot run, or a
 * root that cannot be used), each with the repair.
 */
import { formatCommand } from "../../core/gate/preprocess.ts"
import type { ApprovalRecord } from "../../core/gate/records.ts"
import type { Envelope } from "../../core/protocol/envelope.ts"
import { hostLayer, startHost, type WorkspaceRuntime } from "../../core/runtime.ts"
import { makeMemoryHostFs } from "../../core/services/MemoryHostFs.ts"
import type { ProgressUpdate } from "../../core/services/Progress.ts"
import type { SettingsInput } from "../../core/settings/settings.ts"
import type { JsonSchemaObject } from "../../core/tools/Tool.ts"
import { openWith, type Session as HostSession } from "../open.ts"

/** Where the workspace runs: `auto` picks Deno under Deno and Node under Node. */
export type HostChoice = "auto" | "node" | "deno" | "memory"

/** The settings an embedder passes: any subset of the setting keys (the rest take their defaults). */
export type WorkspaceSettings = { -readonly [K in keyof SettingsInput]?: SettingsInput[K] }

/** What `openWorkspace` takes. */
export interface OpenWorkspaceOptions {
  /** The workspace root (for `memory`: a virtual absolute path, default "/workspace"). */
  readonly root: string
  readonly settings?: WorkspaceSettings
  /** Default "auto". */
  readonly host?: HostChoice
}

/** One registered tool as a model's tool list shows it. */
export interface SessionTool {
  readonly name: string
  readonly description: string
  readonly inputSchema: JsonSchemaObject
}

/** Options of one call. */
export interface CallOptions {
  /** Progress of long work (a search over a large tree, a foreground command, a large commit). */
  readonly onProgress?: (update: ProgressUpdate) => void
}

/** An open workspace. Every method is safe to call concurrently; `call` never rejects for a tool's failure. */
export interface Session {
  /** The host that answered: "node", "deno" or "memory". */
  readonly host: "node" | "deno" | "memory"
  /** The workspace root's real path (for `memory`, the virtual root). */
  readonly root: string
  /** The registered tools for the settings and host in force. */
  tools(): Promise<Array<SessionTool>>
  /** Runs one tool call; resolves to its envelope (`ok: false` with a code for bad input or a refusal). */
  call(name: string, args: unknown, options?: CallOptions): Promise<Envelope>
  /** Runs a user's message through the preprocessor: `/accept`, `/deny` decide; the mode block is appended. */
  preprocess(message: string): Promise<{ text: string }>
  /** The approval records that still matter (pending, approved, denied), newest first. */
  approvals(): Promise<Array<ApprovalRecord>>
  /** The host's own user channel: decides a pending record as the user did; `text` is what to tell the model. */
  decide(id: string, verb: "accept" | "deny", note?: string): Promise<{ decided: boolean; text: string }>
  /** Disposes the runtime (idempotent). Calls after close reject. */
  close(): Promise<void>
}

/** Why a workspace did not open. */
export class OpenWorkspaceError extends Error {
  override readonly name = "OpenWorkspaceError"
  constructor(
    readonly code: "INVALID_INPUT" | "RUNTIME_UNAVAILABLE",
    message: string,
    readonly repair: string
  ) {
    super(`${message}. ${repair}`)
  }
}

const isDeno = () => typeof (globalThis as { Deno?: unknown }).Deno !== "undefined"
const isNode = () => !isDeno() && typeof process !== "undefined" && typeof process.versions?.node === "string"

/** The in-memory host: a fresh memory filesystem holding the root; no processes, network or browser. */
const openMemory = (root: string, settings: Record<string, unknown>) =>
  openWith(root, settings, {
    checkRoot: async (given) => {
      if (!given.startsWith("/"))
        throw Object.assign(new Error("not absolute"), { code: "a memory root must be an absolute virtual path" })
      return given.replace(/\/+$/, "") || "/"
    },
    errorCode: (error) => (error as { code?: string }).code ?? "unknown",
    start: (real, decoded) =>
      startHost(
        hostLayer({ root: real, runtime: "memory", platform: "memory", fs: makeMemoryHostFs([real]).host }),
        decoded
      )
  })

/** The Deno host's module, resolved at run time so Node bundles and type checks never load it. */
const DENO_HOST = new URL("../deno/host.ts", import.meta.url).href

const openOn = async (
  host: "node" | "deno" | "memory",
  root: string,
  settings: Record<string, unknown>
): Promise<HostSession> => {
  if (host === "memory") return openMemory(root, settings)
  if (host === "node") {
    const { openNodeSession } = await import("../node/host.ts")
    return openNodeSession(root, settings)
  }
  let module: { openDenoSession: (root: string, settings: Record<string, unknown>) => Promise<HostSession> }
  try {
    module = await import(DENO_HOST)
  } catch (error) {
    throw new OpenWorkspaceError(
      "RUNTIME_UNAVAILABLE",
      `the Deno host is not part of this build (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`,
      'On Deno, import the TypeScript entry (deno.json "exports" of agentic-workspace), or pass host: "node" under Node.'
    )
  }
  return module.openDenoSession(root, settings)
}

/** Opens a workspace and returns its Session; rejects with an OpenWorkspaceError. */
export const openWorkspace = async (options: OpenWorkspaceOptions): Promise<Session> => {
  const choice: unknown = options.host ?? "auto"
  if (choice !== "auto" && choice !== "node" && choice !== "deno" && choice !== "memory") {
    throw new OpenWorkspaceError(
      "INVALID_INPUT",
      `host must be "auto", "node", "deno" or "memory", got ${JSON.stringify(choice)}`,
      "Pass one of those hosts."
    )
  }
  if (
    options.settings !== undefined &&
    (options.settings === null || typeof options.settings !== "object" || Array.isArray(options.settings))
  ) {
    throw new OpenWorkspaceError(
      "INVALID_INPUT",
      "settings must be an object of setting keys",
      "Pass settings as { key: value }."
    )
  }
  if (typeof options.root !== "string" || options.root.length === 0) {
    throw new OpenWorkspaceError("INVALID_INPUT", "root must be a non-empty path", "Pass the workspace folder as root.")
  }
  const host: "node" | "deno" | "memory" = choice === "auto" ? (isDeno() ? "deno" : "node") : choice
  if (host === "node" && !isNode()) {
    throw new OpenWorkspaceError(
      "RUNTIME_UNAVAILABLE",
      `the Node host needs Node.js, and this runtime is ${isDeno() ? "Deno" : "neither Node nor Deno"}`,
      isDeno() ? 'Pass host: "deno" (or "auto").' : 'Pass host: "memory", or run under Node or Deno.'
    )
  }
  if (host === "deno" && !isDeno()) {
    throw new OpenWorkspaceError(
      "RUNTIME_UNAVAILABLE",
      "the Deno host needs Deno, and this runtime is Node.js",
      'Pass host: "node" (or "auto"), or run under Deno.'
    )
  }
  const opened = await openOn(host, options.root, { ...(options.settings ?? {}) })
  if (opened.failure !== undefined || opened.runtime === undefined) {
    await opened.close()
    const failure = opened.failure ?? { kind: "root", reason: "the runtime did not start", repair: "Open it again." }
    throw new OpenWorkspaceError(
      failure.kind === "settings" ? "INVALID_INPUT" : "RUNTIME_UNAVAILABLE",
      failure.reason,
      failure.repair
    )
  }
  return publicSession(host, opened, opened.runtime)
}

const SESSIONS = new WeakMap<Session, HostSession>()

/** The adapters' Session behind a public one (for agentic-workspace/mcp); undefined for an object that is not one. */
export const hostSessionOf = (session: Session): HostSession | undefined => SESSIONS.get(session)

const RECORD_ID = /^(approval|plan)_[A-Za-z0-9]+$/

/** The public Session over the adapters' Session of an opened workspace. */
const publicSession = (host: "node" | "deno" | "memory", inner: HostSession, runtime: WorkspaceRuntime): Session => {
  let closed: Promise<void> | undefined
  const open = () => {
    if (closed !== undefined)
      throw new OpenWorkspaceError(
        "RUNTIME_UNAVAILABLE",
        "this session is closed",
        "Open a new one with openWorkspace."
      )
  }
  const session: Session = {
    host,
    root: runtime.info.root,
    tools: async () => {
      open()
      return inner.tools().map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))
    },
    call: async (name, args, options) => {
      open()
      return inner.call(name, args, options?.onProgress === undefined ? undefined : { onProgress: options.onProgress })
    },
    preprocess: async (message) => {
      open()
      return { text: (await inner.preprocess(message)).text }
    },
    approvals: async () => {
      open()
      return (await inner.approvals()).filter(
        (record) => record.status === "pending" || record.status === "approved" || record.status === "denied"
      )
    },
    decide: async (id, verb, note) => {
      open()
      // An id that is not a record id would read as the note of a bare /accept (which decides the newest pending record).
      if (!RECORD_ID.test(id))
        return { decided: false, text: `"${id}" is not an approval id (approval_… or plan_…); nothing was decided.` }
      const trimmed = note?.trim()
      // The same step as the CLI's accept/deny: the preprocessor's own decision, so the text matches /accept.
      const result = await inner.preprocess(
        formatCommand({ verb, id, ...(trimmed === undefined || trimmed.length === 0 ? {} : { text: trimmed }) })
      )
      return { decided: result.decided !== undefined, text: result.text }
    },
    close: () => (closed ??= inner.close())
  }
  SESSIONS.set(session, inner)
  return session
}
