/**
 * The MCP server over the core's registry, host-free (web standards and the MCP SDK only), so the Node
 * and Deno hosts serve the same thing. tools/list comes from the registry's JSON Schemas and each tool's
 * own annotations and the envelope as `outputSchema`; tools/call returns the envelope as
 * `structuredContent`, and as text its summary and then its data as JSON (clients that never show
 * structuredContent to the model still give it the data), `isError` when `ok` is false. When the client
 * can show a form, a staged call (Manual mode) and a proposed plan are put to the user through
 * `elicitation/create` at once; every reply that needs the user names the ways to decide in this host
 * (adapters/mcp/decide.ts). The model's own input can never approve anything. With no fixed root, the
 * workspace is the client's first MCP root. `createMcpServer` builds our own server; `installToolHandlers`
 * puts the same handlers on an embedder's server (adapters/embed/mcp.ts). A call whose client sent a
 * progress token forwards the tool's progress as `notifications/progress`.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ElicitResultSchema,
  isJSONRPCRequest,
  ListRootsResultSchema,
  ListToolsRequestSchema,
  type LoggingLevel,
  SetLevelRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator
} from "@modelcontextprotocol/sdk/validation/types.js"
import type { Envelope } from "../../core/protocol/envelope.ts"
import { defined } from "../../core/text/defined.ts"
import type { Session } from "../open.ts"
import { startProgress } from "../progress.ts"
import { VERSION } from "../version.ts"
import { type DecisionChannels, forThisHost, terminalCommand } from "./decide.ts"
import { askPlan, askUser, canElicitForm, type PromptContext, proposedPlan, stagedApproval } from "./prompts.ts"
import { callResult, mcpTool } from "./wire.ts"

/** The server's name and version as MCP clients see them. */
export const SERVER_INFO = { name: "agentic-workspace", version: VERSION } as const

/**
 * What the MCP server serves: the workspace's Session (when it could not open, the diagnostic tool
 * alone) and its root, as the terminal command must name it.
 */
export interface McpWorkspace {
  readonly session: Session
  readonly root: string
}

/** A fixed workspace still opening: its root, known at once (the instructions name it), and the opening. */
export interface OpeningWorkspace {
  readonly root: string
  readonly opening: Promise<McpWorkspace>
}

/**
 * Where the server's workspace comes from: fixed (`--root`; opened, or still opening: initialize is then
 * answered at once and the tool requests wait for it), or opened on first use at the client's first MCP
 * root (the given function gets that root, or undefined when the client offers none).
 */
export type WorkspaceSource =
  | McpWorkspace
  | OpeningWorkspace
  | ((clientRoot: string | undefined) => Promise<McpWorkspace>)

/** Options of one MCP server. */
export interface McpServerOptions {
  /** The review page's URL while one runs (a later issue serves it); named in every reply that needs the user. */
  readonly reviewUrl?: () => string | undefined
}

/** The path of a `file://` root URI (roots of other schemes are not workspaces). */
export const rootPath = (uri: string): string | undefined => {
  try {
    const url = new URL(uri)
    return url.protocol === "file:" ? decodeURIComponent(url.pathname) : undefined
  } catch {
    return undefined
  }
}

/** How long the server waits for the user to answer an approval prompt before leaving it pending. */
export const ELICITATION_TIMEOUT_MS = 10 * 60 * 1000

/** Counts tool calls in flight, so a stdio server whose input ended can finish them before it exits. */
export class Inflight {
  private active = 0
  /** Runs `work` counted. */
  track<A>(work: () => Promise<A>): Promise<A> {
    this.active++
    return work().finally(() => {
      this.active--
    })
  }
  /** Settles once no call has been in flight for two turns of the event loop. */
  async drained(): Promise<void> {
    let quiet = 0
    while (quiet < 2) {
      await new Promise((resolve) => setTimeout(resolve, 10))
      quiet = this.active === 0 ? quiet + 1 : 0
    }
  }
}

/** The server's instructions: what it serves and how the user decides in this host. */
export const instructionsFor = (root: string | undefined): string => {
  const where = root ?? "<root>"
  return [
    "agentic-workspace: tools to read, search and change this workspace. Every mutation is gated by the user's permission mode (Plan by default: propose a plan with workspace_plan, then wait); follow each envelope's summary.",
    "Only the user approves; no tool input can. When a reply says the user must decide, tell the user the ways it names: this client's approval prompt (the server asks at once when the client can show one),",
    `or in a terminal \`${terminalCommand("accept", "<id>", where)}\` (\`${terminalCommand("deny", "<id>", where)}\`), or the review page when one is running.`,
    "There is no /accept command in an MCP client."
  ].join(" ")
}

/**
 * The SDK validates elicitation answers (in `elicitInput`, which this server does not use: askUser reads
 * the one optional note itself) with Ajv by default, and building Ajv costs start-up. This checks the
 * flat form schemas elicitation allows: an object whose listed properties have the listed primitive type.
 */
export const formSchemaValidator: jsonSchemaValidator = {
  getValidator:
    <T>(schema: JsonSchemaType): JsonSchemaValidator<T> =>
    (input: unknown) => {
      const properties = (schema as { properties?: Record<string, { type?: string }> }).properties ?? {}
      const required = ((schema as { required?: ReadonlyArray<string> }).required ?? []) as ReadonlyArray<string>
      if (input === null || typeof input !== "object" || Array.isArray(input))
        return { valid: false, data: undefined, errorMessage: "the answer is not an object" }
      const record = input as Record<string, unknown>
      for (const key of required)
        if (record[key] === undefined) return { valid: false, data: undefined, errorMessage: `"${key}" is required` }
      for (const [key, property] of Object.entries(properties)) {
        const value = record[key]
        if (value === undefined || property.type === undefined) continue
        const type = property.type === "integer" ? "number" : property.type
        if (typeof value !== type)
          return { valid: false, data: undefined, errorMessage: `"${key}" must be a ${property.type}` }
      }
      return { valid: true, data: input as T, errorMessage: undefined }
    }
}

/** The SDK's own dispatch of one request (Protocol's `_onrequest`, not part of its typed API). */
type RequestDispatch = (request: Parameters<typeof isJSONRPCRequest>[0], extra?: unknown) => void

/**
 * Connects `server` to `transport` and hands each incoming request straight to the SDK's request dispatch.
 * The SDK's Protocol tells a message's kind by trying it as a result response, then as an error response,
 * then as a request: two zod parses that fail on every request, each building a ZodError (an Error with its
 * stack and every issue's message), about 35 us of each tools/call (issue 29, bench/RESULTS.md). Both response
 * schemas are strict objects without `method`, which every request has, so a message that is a request is
 * never either response: asking "request?" first dispatches it where the SDK would. Everything else (responses
 * to our own requests, notifications, what is none of these) goes through the SDK's handler unchanged, and a
 * Protocol without that dispatch keeps its own handler for everything.
 */
export const connectServer = async (server: Server, transport: Transport): Promise<void> => {
  await server.connect(transport)
  const classify = transport.onmessage
  const dispatch = (server as unknown as { readonly _onrequest?: RequestDispatch })._onrequest
  if (classify === undefined || typeof dispatch !== "function") return
  transport.onmessage = (message, extra) => {
    if (isJSONRPCRequest(message)) dispatch.call(server, message, extra)
    else classify(message, extra)
  }
}

/** Builds one MCP server (one per session) over the workspace (fixed, or the client's first root). */
export const createMcpServer = (
  source: WorkspaceSource,
  inflight: Inflight = new Inflight(),
  options: McpServerOptions = {}
): Server => {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, logging: {} },
    instructions: instructionsFor(typeof source === "function" ? undefined : source.root),
    jsonSchemaValidator: formSchemaValidator
  })
  installToolHandlers(server, source, inflight, options)
  return server
}

/** What a request handler of the server is given besides the request: the ways to talk back within it. */
type Extra = Parameters<Parameters<Server["setRequestHandler"]>[1]>[1]

/** The workspace of a server; with no fixed root, opened at the client's first root on first use (asked within the request). */
const workspaceOf = (server: Server, source: WorkspaceSource) => {
  let resolved: Promise<McpWorkspace> | undefined
  return (extra: Extra): Promise<McpWorkspace> => {
    if (typeof source !== "function") return "opening" in source ? source.opening : Promise.resolve(source)
    resolved ??= (async () => {
      let root: string | undefined
      if (server.getClientCapabilities()?.roots !== undefined) {
        const listed = await extra
          .sendRequest({ method: "roots/list" }, ListRootsResultSchema, { timeout: 30_000 })
          .catch(() => undefined)
        root = listed?.roots.map((entry) => rootPath(entry.uri)).find((path) => path !== undefined)
      }
      return source(root)
    })()
    return resolved
  }
}

/** The logging levels, least severe first. */
const LEVELS: ReadonlyArray<LoggingLevel> = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency"
]

/**
 * Installs logging/setLevel and returns whether a level is wanted. logging/setLevel opts in to the per-call
 * log line (at or above the client's level); before it none is sent: the line repeats the result's own
 * summary, and one more message per call cost about 0.9 ms of a 3.5 ms read over stdio (docs/mcp.md, "Logging").
 */
const installLogging = (server: Server): ((level: LoggingLevel) => boolean) => {
  let minimum: LoggingLevel | undefined
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    minimum = request.params.level
    return {}
  })
  return (level) => minimum !== undefined && LEVELS.indexOf(level) >= LEVELS.indexOf(minimum)
}

/**
 * Runs one tool call in the session; when the client asked for progress (its token), forwards the tool's
 * reports, with a heartbeat while it reports nothing.
 */
const runCall = async (
  session: Session,
  name: string,
  args: Record<string, unknown>,
  token: string | number | undefined,
  extra: Extra
): Promise<Envelope> => {
  const progress =
    token === undefined
      ? undefined
      : startProgress(name, (params) =>
          extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, ...params } })
        )
  try {
    return await session.call(name, args, progress === undefined ? undefined : { onProgress: progress.onProgress })
  } finally {
    progress?.stop()
  }
}

/**
 * The answer of a call: put to the user at once when the client can show a form and the call was staged or
 * proposed a plan; otherwise the envelope, naming the ways to decide in this host.
 */
const answerOf = (
  server: Server,
  workspace: McpWorkspace,
  options: McpServerOptions,
  call: { readonly name: string; readonly args: Record<string, unknown>; readonly raw: Envelope },
  extra: Extra
): Promise<CallToolResult> | CallToolResult => {
  const { session } = workspace
  const { name, args, raw } = call
  const budget = session.settings?.maxToolResultChars ?? 20_000
  const prompt = session.failure === undefined && canElicitForm(server.getClientCapabilities())
  const channels: DecisionChannels = { prompt, root: workspace.root, ...defined({ reviewUrl: options.reviewUrl?.() }) }
  if (prompt) {
    // Sent as part of this request, so over HTTP it travels on the call's own stream.
    const context: PromptContext = {
      elicit: (params) =>
        extra.sendRequest({ method: "elicitation/create", params }, ElicitResultSchema, {
          timeout: ELICITATION_TIMEOUT_MS
        }),
      session,
      channels,
      budget
    }
    const approval = stagedApproval(raw)
    if (approval !== undefined) return askUser(context, name, args, raw, approval)
    const planId = proposedPlan(raw)
    if (planId !== undefined) return askPlan(context, raw, planId)
  }
  return callResult(forThisHost(raw, channels), undefined, budget)
}

/**
 * Installs tools/list, tools/call and logging/setLevel on a server (ours, or an embedder's, e.g. an
 * McpServer's `.server` that registered no tools of its own); the server must not be connected yet.
 */
export const installToolHandlers = (
  server: Server,
  source: WorkspaceSource,
  inflight: Inflight = new Inflight(),
  options: McpServerOptions = {}
): void => {
  server.registerCapabilities({ tools: { listChanged: false }, logging: {} })
  const workspaceFor = workspaceOf(server, source)

  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => ({
    tools: (await workspaceFor(extra)).session.tools().map(mcpTool)
  }))

  const wanted = installLogging(server)

  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    inflight.track(async () => {
      const { name } = request.params
      const args = request.params.arguments ?? {}
      const workspace = await workspaceFor(extra)
      const raw = await runCall(workspace.session, name, args, request.params._meta?.progressToken, extra)
      // Related to this request, so over HTTP it travels on the call's own stream.
      const level: LoggingLevel = raw.ok ? "info" : "warning"
      if (wanted(level)) {
        await extra
          .sendNotification({
            method: "notifications/message",
            params: { level, logger: "agentic-workspace", data: `${name} ${raw.operation}: ${raw.summary}` }
          })
          .catch(() => undefined)
      }
      return answerOf(server, workspace, options, { name, args, raw }, extra)
    })
  )
}
