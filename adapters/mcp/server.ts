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
  ListRootsResultSchema,
  type CallToolResult,
  type ElicitRequestFormParams,
  type ElicitResult,
  ElicitResultSchema,
  ListToolsRequestSchema,
  type LoggingLevel,
  SetLevelRequestSchema,
  type Tool
} from "@modelcontextprotocol/sdk/types.js"
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator
} from "@modelcontextprotocol/sdk/validation/types.js"
import { approvalBlock } from "../../core/gate/preprocess.ts"
import { type Prompt, promptLines } from "../../core/gate/prompt.ts"
import type { ResumeCall } from "../../core/gate/records.ts"
import { ENVELOPE_JSON_SCHEMA, type Envelope } from "../../core/protocol/envelope.ts"
import type { ToolListing } from "../../core/registry.ts"
import type { Session } from "../open.ts"
import { startProgress } from "../progress.ts"
import { VERSION } from "../version.ts"
import { type DecisionChannels, forThisHost, terminalCommand, waysToDecide } from "./decide.ts"

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

/** The MCP tool listing of one registry tool: schemas and annotations, every hint explicit. */
export const mcpTool = (listing: ToolListing): Tool => ({
  name: listing.name,
  description: listing.description,
  inputSchema: listing.inputSchema as unknown as Tool["inputSchema"],
  outputSchema: ENVELOPE_JSON_SCHEMA as unknown as Tool["outputSchema"],
  annotations: {
    readOnlyHint: listing.annotations.readOnlyHint,
    destructiveHint: listing.annotations.destructiveHint,
    openWorldHint: listing.annotations.openWorldHint,
    ...(listing.annotations.idempotentHint === undefined ? {} : { idempotentHint: listing.annotations.idempotentHint })
  }
})

/** The data part of the text content: the envelope's data (or a failure's details) as JSON, clipped to the budget. */
export const dataText = (envelope: Envelope, budget: number): string | undefined => {
  const payload = envelope.data ?? envelope.error?.details
  if (payload === undefined) return undefined
  const text = JSON.stringify(payload)
  return text.length <= budget
    ? text
    : `${text.slice(0, budget)}… (${text.length - budget} more characters in structuredContent and the artifacts)`
}

/**
 * The tools/call result of an envelope: the envelope as structuredContent; as text its summary, any
 * note of this host (an answered prompt), then the data as JSON within `budget` characters.
 */
export const callResult = (envelope: Envelope, extraText?: string, budget = 20_000): CallToolResult => {
  const data = dataText(envelope, budget)
  return {
    content: [
      { type: "text", text: envelope.summary },
      ...(extraText === undefined ? [] : [{ type: "text" as const, text: extraText }]),
      ...(data === undefined ? [] : [{ type: "text" as const, text: data }])
    ],
    structuredContent: envelope as unknown as Record<string, unknown>,
    isError: !envelope.ok
  }
}

/** The approval part of a staged envelope, when the call was staged. */
export interface StagedApproval {
  readonly id: string
  readonly kind: string
  readonly title: string
  readonly destructive: boolean
  readonly resume?: ResumeCall
}

/** Reads the staged approval out of an envelope (`data.status === "pending_approval"`). */
export const stagedApproval = (envelope: Envelope): StagedApproval | undefined => {
  const data = envelope.data as { status?: unknown; approval?: Partial<StagedApproval> } | undefined
  if (!envelope.ok || data?.status !== "pending_approval" || typeof data.approval?.id !== "string") return undefined
  return {
    id: data.approval.id,
    kind: String(data.approval.kind ?? "operation"),
    title: String(data.approval.title ?? data.approval.id),
    destructive: data.approval.destructive === true,
    ...(data.approval.resume === undefined ? {} : { resume: data.approval.resume })
  }
}

const MESSAGE_PREVIEW_CHARS = 6000

const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters; see the envelope)`

/** The text of an approval prompt: operation, destructive flag, and what the record's typed prompt asks (the diff, the argv and cwd, ...). */
export const approvalMessage = (
  tool: string,
  envelope: Envelope,
  approval: StagedApproval,
  prompt?: Prompt
): string => {
  const lines = [
    `${tool} wants to run ${envelope.operation}: ${approval.title}`,
    `Approval ${approval.id} (${approval.kind}). Destructive: ${approval.destructive ? "YES: it deletes, moves or overwrites existing content" : "no"}.`
  ]
  if (prompt !== undefined) lines.push("", ...promptLines(prompt, MESSAGE_PREVIEW_CHARS))
  if (approval.resume !== undefined)
    lines.push(
      "",
      `Runs: ${approval.resume.tool} ${clip(JSON.stringify(approval.resume.arguments), MESSAGE_PREVIEW_CHARS)}`
    )
  lines.push(
    "",
    "Accept runs it now; Decline denies it (the identical call is then refused); Cancel leaves it pending."
  )
  return lines.join("\n")
}

/** The schema of an approval prompt: nothing required, an optional note (a reason when declining). */
export const APPROVAL_SCHEMA = {
  type: "object" as const,
  properties: {
    note: {
      type: "string" as const,
      title: "Note",
      description: "Optional: a note for the model (or the reason, when you decline)."
    }
  }
}

/** Whether a client can show a form elicitation (an empty `elicitation` object means form). */
export const canElicitForm = (
  capabilities: { elicitation?: { form?: unknown; url?: unknown } } | undefined
): boolean => {
  const elicitation = capabilities?.elicitation
  if (elicitation === undefined) return false
  return !(elicitation.form === undefined && elicitation.url !== undefined)
}

/** What a prompt needs besides the elicit function: the session, this host's channels, the result budget. */
interface PromptContext {
  readonly elicit: (params: ElicitRequestFormParams) => Promise<ElicitResult>
  readonly session: Session
  readonly channels: DecisionChannels
  readonly budget: number
}

/** The note of an answer, trimmed, when the user wrote one. */
const noteOf = (answer: ElicitResult): string | undefined =>
  typeof answer.content?.["note"] === "string" && answer.content["note"].trim().length > 0
    ? answer.content["note"].trim()
    : undefined

/** Asks; undefined when the prompt failed or timed out (the error's text is returned beside). */
const ask = async (context: PromptContext, message: string): Promise<ElicitResult | { readonly failed: string }> => {
  try {
    return await context.elicit({ mode: "form", message, requestedSchema: APPROVAL_SCHEMA })
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error) }
  }
}

/** Channels after the prompt was used up (dismissed or failed): the terminal and the review page remain. */
const withoutPrompt = (channels: DecisionChannels): DecisionChannels => ({ ...channels, prompt: false })

/**
 * Puts a staged call to the user and acts on the answer: accept decides the record approved and runs
 * its resume call (the approval is bound to that operation's hash, so it runs now and is consumed);
 * decline denies it and re-issues the call, which the gate answers with APPROVAL_DENIED; cancel, an
 * error or a timeout leaves it pending and returns the staged envelope, naming the other ways.
 */
const askUser = async (
  context: PromptContext,
  tool: string,
  args: unknown,
  staged: Envelope,
  approval: StagedApproval
): Promise<CallToolResult> => {
  const { session, budget } = context
  const later = forThisHost(staged, withoutPrompt(context.channels))
  const prompt = (await session.approvals()).find((record) => record.id === approval.id)?.prompt
  const answer = await ask(context, approvalMessage(tool, staged, approval, prompt))
  if ("failed" in answer) {
    return callResult(
      later,
      `The approval prompt for ${approval.id} got no answer (${answer.failed}); it stays pending. ${waysToDecide(approval.id, withoutPrompt(context.channels))}`,
      budget
    )
  }
  if (answer.action === "cancel") {
    return callResult(
      later,
      `The user dismissed the approval prompt: ${approval.id} stays pending. Do not retry; wait for the user's decision.`,
      budget
    )
  }
  const note = noteOf(answer)
  const verb = answer.action === "accept" ? "accept" : "deny"
  const decided = await session.decide({ verb, id: approval.id, ...(note === undefined ? {} : { text: note }) })
  if (decided._tag === "Left") {
    return callResult(
      later,
      `The user answered ${answer.action} for ${approval.id}, but it was not decided: ${decided.left.code}: ${decided.left.message}`,
      budget
    )
  }
  const resume = approval.resume ?? { tool, arguments: args as Record<string, unknown> }
  const envelope = forThisHost(await session.call(resume.tool, resume.arguments), context.channels)
  const said = note === undefined ? "" : ` ${verb === "accept" ? "Note" : "Reason"}: ${note}`
  return callResult(
    envelope,
    verb === "accept"
      ? `The user approved ${approval.id} in the client's prompt and it ran as ${resume.tool} ${JSON.stringify(resume.arguments)}; do not call it again.${said}`
      : `The user denied ${approval.id} in the client's prompt.${said} Never re-issue the denied operation unchanged: change it to meet the reason, or ask the user.`,
    budget
  )
}

/** The text of a plan prompt: title, objective, steps, files and commands as the plan's markdown gives them. */
export const planMessage = (proposed: Envelope, planId: string): string => {
  const data = (proposed.data ?? {}) as { markdown?: unknown; plan?: { title?: unknown } }
  const markdown = typeof data.markdown === "string" ? data.markdown : proposed.summary
  return [
    `The model proposes plan ${planId}. Approving it lets the model change the workspace (edits, commands) without asking again until it completes the plan.`,
    "",
    clip(markdown, MESSAGE_PREVIEW_CHARS),
    "",
    "Accept approves the plan; Decline denies it (write why in the note); Cancel decides later."
  ].join("\n")
}

/**
 * Puts a proposed plan to the user before propose returns: accept approves it (the next mutating
 * call runs under it), decline denies it with the note as the reason, cancel or no answer leaves it
 * pending. The result is the propose envelope with the plan's status after the answer and the
 * decision said as the preprocessor would say it.
 */
const askPlan = async (context: PromptContext, proposed: Envelope, planId: string): Promise<CallToolResult> => {
  const { session, budget } = context
  const later = forThisHost(proposed, withoutPrompt(context.channels))
  const answer = await ask(context, planMessage(proposed, planId))
  if ("failed" in answer) {
    return callResult(
      later,
      `The plan prompt for ${planId} got no answer (${answer.failed}); the plan stays pending.`,
      budget
    )
  }
  if (answer.action === "cancel") {
    return callResult(
      later,
      `The user dismissed the plan prompt: ${planId} stays pending. Do not retry; wait for the user's decision.`,
      budget
    )
  }
  const note = noteOf(answer)
  const verb = answer.action === "accept" ? "accept" : "deny"
  const decided = await session.decide({ verb, id: planId, ...(note === undefined ? {} : { text: note }) })
  if (decided._tag === "Left") {
    return callResult(
      later,
      `The user answered ${answer.action} for ${planId}, but it was not decided: ${decided.left.code}: ${decided.left.message}`,
      budget
    )
  }
  const block = approvalBlock(decided.right, session.settings?.permissionMode ?? 1)
  const told = block
    .replace(/^<agentic-approval>\n/, "")
    .replace(/\n<\/agentic-approval>$/, "")
    .replace(/\n/g, " ")
  const data = (proposed.data ?? {}) as Record<string, unknown>
  const status = decided.right.record.status
  const envelope: Envelope = {
    ...proposed,
    summary: `${told}`,
    data: {
      ...data,
      status,
      instruction: told,
      ...(note === undefined ? {} : verb === "accept" ? { note } : { reason: note })
    },
    retention: {
      importance: "critical",
      facts: [
        `plan ${planId} ${status} by the user in the client's prompt`,
        ...(proposed.retention.facts ?? []).slice(1)
      ]
    }
  }
  return callResult(
    envelope,
    `The user ${verb === "accept" ? "approved" : "denied"} plan ${planId} in the client's prompt.`,
    budget
  )
}

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

  type Extra = Parameters<Parameters<typeof server.setRequestHandler<typeof CallToolRequestSchema>>[1]>[1]
  let resolved: Promise<McpWorkspace> | undefined
  /** The workspace; with no fixed root, opened at the client's first root on first use (asked within the request). */
  const workspaceFor = (extra: Extra): Promise<McpWorkspace> => {
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

  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => ({
    tools: (await workspaceFor(extra)).session.tools().map(mcpTool)
  }))

  // logging/setLevel opts in to the per-call log line (at or above the client's level); before it none is
  // sent: the line repeats the result's own summary, and one more message per call cost about 0.9 ms of
  // a 3.5 ms read over stdio (docs/mcp.md, "Logging").
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
  let minimum: LoggingLevel | undefined
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    minimum = request.params.level
    return {}
  })
  const wanted = (level: LoggingLevel) => minimum !== undefined && LEVELS.indexOf(level) >= LEVELS.indexOf(minimum)

  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    inflight.track(async () => {
      const { name } = request.params
      const args = request.params.arguments ?? {}
      const workspace = await workspaceFor(extra)
      const session = workspace.session
      const budget = session.settings?.maxToolResultChars ?? 20_000
      // The client asked for progress: forward the tool's reports, with a heartbeat while it reports nothing.
      const token = request.params._meta?.progressToken
      const progress =
        token === undefined
          ? undefined
          : startProgress(name, (params) =>
              extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, ...params } })
            )
      let raw: Envelope
      try {
        raw = await session.call(name, args, progress === undefined ? undefined : { onProgress: progress.onProgress })
      } finally {
        progress?.stop()
      }
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
      const prompt = session.failure === undefined && canElicitForm(server.getClientCapabilities())
      const reviewUrl = options.reviewUrl?.()
      const channels: DecisionChannels = {
        prompt,
        root: workspace.root,
        ...(reviewUrl === undefined ? {} : { reviewUrl })
      }
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
    })
  )
}

/** The id of a plan a propose envelope left pending. */
export const proposedPlan = (envelope: Envelope): string | undefined => {
  const data = envelope.data as { status?: unknown; planId?: unknown } | undefined
  return envelope.ok &&
    envelope.operation === "plan.propose" &&
    data?.status === "pending" &&
    typeof data.planId === "string"
    ? data.planId
    : undefined
}
