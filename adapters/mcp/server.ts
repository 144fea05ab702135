/**
 * The MCP server over the core's registry, host-free (web standards and the MCP SDK only), so the Node
 * and Deno hosts serve the same thing. tools/list comes from the registry's JSON Schemas and each tool's
 * own annotations; tools/call returns the envelope as `structuredContent` and its summary as text,
 * `isError` when `ok` is false. In Manual mode a staged call is put to the user through
 * `elicitation/create` when the client can show it; the model's own input can never approve anything.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  CallToolRequestSchema,
  type CallToolResult,
  type ElicitRequestFormParams,
  type ElicitResult,
  ElicitResultSchema,
  ListToolsRequestSchema,
  type LoggingLevel,
  SetLevelRequestSchema,
  type Tool
} from "@modelcontextprotocol/sdk/types.js"
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js"
import { type Prompt, promptLines } from "../../core/gate/prompt.ts"
import type { ResumeCall } from "../../core/gate/records.ts"
import type { Envelope } from "../../core/protocol/envelope.ts"
import type { ToolListing } from "../../core/registry.ts"
import type { Session } from "../open.ts"
import { startProgress } from "../progress.ts"
import { VERSION } from "../version.ts"

/** The server's name and version as MCP clients see them. */
export const SERVER_INFO = { name: "agentic-workspace", version: VERSION } as const

/** What the MCP server serves: the workspace's Session (when it could not open, the diagnostic tool alone). */
export type McpWorkspace = Session

/** How long the server waits for the user to answer an approval prompt before leaving it pending. */
export const ELICITATION_TIMEOUT_MS = 10 * 60 * 1000

/** The MCP tool listing of one registry tool: schema and annotations, every hint explicit. */
export const mcpTool = (listing: ToolListing): Tool => ({
  name: listing.name,
  description: listing.description,
  inputSchema: listing.inputSchema as unknown as Tool["inputSchema"],
  annotations: {
    title: listing.name,
    readOnlyHint: listing.annotations.readOnlyHint,
    destructiveHint: listing.annotations.destructiveHint,
    openWorldHint: listing.annotations.openWorldHint,
    ...(listing.annotations.idempotentHint === undefined ? {} : { idempotentHint: listing.annotations.idempotentHint })
  }
})

/** The tools/call result of an envelope: the envelope as structuredContent, its summary as text. */
export const callResult = (envelope: Envelope, extraText?: string): CallToolResult => ({
  content: [
    { type: "text", text: envelope.summary },
    ...(extraText === undefined ? [] : [{ type: "text" as const, text: extraText }])
  ],
  structuredContent: envelope as unknown as Record<string, unknown>,
  isError: !envelope.ok
})

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

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters; see the envelope)`)

/** The text of an approval prompt: operation, destructive flag, and what the record's typed prompt asks (the diff, the argv and cwd, ...). */
export const approvalMessage = (tool: string, envelope: Envelope, approval: StagedApproval, prompt?: Prompt): string => {
  const lines = [
    `${tool} wants to run ${envelope.operation}: ${approval.title}`,
    `Approval ${approval.id} (${approval.kind}). Destructive: ${approval.destructive ? "YES: it deletes, moves or overwrites existing content" : "no"}.`
  ]
  if (prompt !== undefined) lines.push("", ...promptLines(prompt, MESSAGE_PREVIEW_CHARS))
  if (approval.resume !== undefined) lines.push("", `Runs: ${approval.resume.tool} ${clip(JSON.stringify(approval.resume.arguments), MESSAGE_PREVIEW_CHARS)}`)
  lines.push("", "Accept runs it now; Decline denies it (the identical call is then refused); Cancel leaves it pending.")
  return lines.join("\n")
}

/** The schema of an approval prompt: nothing required, an optional note (a reason when declining). */
export const APPROVAL_SCHEMA = {
  type: "object" as const,
  properties: {
    note: { type: "string" as const, title: "Note", description: "Optional: a note for the model (or the reason, when you decline)." }
  }
}

/** Whether a client can show a form elicitation (an empty `elicitation` object means form). */
export const canElicitForm = (capabilities: { elicitation?: { form?: unknown; url?: unknown } } | undefined): boolean => {
  const elicitation = capabilities?.elicitation
  if (elicitation === undefined) return false
  return !(elicitation.form === undefined && elicitation.url !== undefined)
}

/**
 * Puts a staged call to the user and acts on the answer: accept decides the record approved and runs
 * its resume call (the approval is bound to that operation's hash, so it runs now and is consumed);
 * decline denies it and re-issues the call, which the gate answers with APPROVAL_DENIED; cancel, an
 * error or a timeout leaves it pending and returns the staged envelope.
 */
const askUser = async (
  elicit: (params: ElicitRequestFormParams) => Promise<ElicitResult>,
  session: Session,
  tool: string,
  args: unknown,
  staged: Envelope,
  approval: StagedApproval
): Promise<CallToolResult> => {
  let answer: ElicitResult
  try {
    const prompt = (await session.approvals()).find((record) => record.id === approval.id)?.prompt
    answer = await elicit({ mode: "form", message: approvalMessage(tool, staged, approval, prompt), requestedSchema: APPROVAL_SCHEMA })
  } catch (error) {
    return callResult(
      staged,
      `The approval prompt for ${approval.id} got no answer (${error instanceof Error ? error.message : String(error)}); it stays pending for /accept or agentic-workspace accept ${approval.id}.`
    )
  }
  if (answer.action === "cancel") {
    return callResult(staged, `The user dismissed the approval prompt: ${approval.id} stays pending. Do not retry; wait for the user's decision.`)
  }
  const note = typeof answer.content?.["note"] === "string" && answer.content["note"].trim().length > 0 ? answer.content["note"].trim() : undefined
  const verb = answer.action === "accept" ? "accept" : "deny"
  const decided = await session.decide({ verb, id: approval.id, ...(note === undefined ? {} : { text: note }) })
  if (decided._tag === "Left") {
    return callResult(staged, `The user answered ${answer.action} for ${approval.id}, but it was not decided: ${decided.left.code}: ${decided.left.message}`)
  }
  const resume = approval.resume ?? { tool, arguments: args as Record<string, unknown> }
  const envelope = await session.call(resume.tool, resume.arguments)
  const said = note === undefined ? "" : ` ${verb === "accept" ? "Note" : "Reason"}: ${note}`
  return callResult(
    envelope,
    verb === "accept"
      ? `The user approved ${approval.id} in the client's prompt and it ran as ${resume.tool} ${JSON.stringify(resume.arguments)}; do not call it again.${said}`
      : `The user denied ${approval.id} in the client's prompt.${said} Never re-issue the denied operation unchanged: change it to meet the reason, or ask the user.`
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

/** The server's instructions to the client. */
export const INSTRUCTIONS =
  "agentic-workspace: tools to read, search and change this workspace. Every mutation is gated by the user's permission mode; follow each envelope's summary. Only the user approves (through /accept, the terminal, or this client's approval prompt)."

/**
 * The SDK validates elicitation answers (in `elicitInput`, which this server does not use: askUser reads
 * the one optional note itself) with Ajv by default, and building Ajv costs start-up. This checks the
 * flat form schemas elicitation allows: an object whose listed properties have the listed primitive type.
 */
export const formSchemaValidator: jsonSchemaValidator = {
  getValidator: <T>(schema: JsonSchemaType): JsonSchemaValidator<T> => (input: unknown) => {
    const properties = (schema as { properties?: Record<string, { type?: string }> }).properties ?? {}
    const required = ((schema as { required?: ReadonlyArray<string> }).required ?? []) as ReadonlyArray<string>
    if (input === null || typeof input !== "object" || Array.isArray(input)) return { valid: false, data: undefined, errorMessage: "the answer is not an object" }
    const record = input as Record<string, unknown>
    for (const key of required) if (record[key] === undefined) return { valid: false, data: undefined, errorMessage: `"${key}" is required` }
    for (const [key, property] of Object.entries(properties)) {
      const value = record[key]
      if (value === undefined || property.type === undefined) continue
      const type = property.type === "integer" ? "number" : property.type
      if (typeof value !== type) return { valid: false, data: undefined, errorMessage: `"${key}" must be a ${property.type}` }
    }
    return { valid: true, data: input as T, errorMessage: undefined }
  }
}

/** Builds one MCP server (one per session) over the workspace. */
export const createMcpServer = (workspace: McpWorkspace, inflight: Inflight = new Inflight()): Server => {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, logging: {} },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: formSchemaValidator
  })
  installToolHandlers(server, workspace, inflight)
  return server
}

/**
 * Installs tools/list, tools/call and logging/setLevel on a server (ours, or an embedder's, e.g. an
 * McpServer's `.server` that registered no tools of its own); the server must not be connected yet.
 */
export const installToolHandlers = (server: Server, workspace: McpWorkspace, inflight: Inflight = new Inflight()): void => {
  server.registerCapabilities({ tools: { listChanged: false }, logging: {} })
  const settings = workspace.settings

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: workspace.tools().map(mcpTool) }))

  // logging/setLevel: below the client's level, the per-call log line is not sent.
  const LEVELS: ReadonlyArray<LoggingLevel> = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
  let minimum: LoggingLevel | undefined
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    minimum = request.params.level
    return {}
  })
  const wanted = (level: LoggingLevel) => minimum === undefined || LEVELS.indexOf(level) >= LEVELS.indexOf(minimum)

  server.setRequestHandler(CallToolRequestSchema, (request, extra) => inflight.track(async () => {
    const { name } = request.params
    const args = request.params.arguments ?? {}
    // The client asked for progress: forward the tool's reports, with a heartbeat while it reports nothing.
    const token = request.params._meta?.progressToken
    const progress =
      token === undefined
        ? undefined
        : startProgress(name, (params) => extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, ...params } }))
    let envelope: Envelope
    try {
      envelope = await workspace.call(name, args, progress === undefined ? undefined : { onProgress: progress.onProgress })
    } finally {
      progress?.stop()
    }
    // Related to this request, so over HTTP it travels on the call's own stream.
    const level: LoggingLevel = envelope.ok ? "info" : "warning"
    if (wanted(level)) {
      await extra
        .sendNotification({
          method: "notifications/message",
          params: { level, logger: "agentic-workspace", data: `${name} ${envelope.operation}: ${envelope.summary}` }
        })
        .catch(() => undefined)
    }
    const approval = stagedApproval(envelope)
    if (approval !== undefined && workspace.failure === undefined && settings?.permissionMode === 0 && canElicitForm(server.getClientCapabilities())) {
      // Sent as part of this request, so over HTTP it travels on the call's own stream.
      const elicit = (params: ElicitRequestFormParams) =>
        extra.sendRequest({ method: "elicitation/create", params }, ElicitResultSchema, { timeout: ELICITATION_TIMEOUT_MS })
      return askUser(elicit, workspace, name, args, envelope, approval)
    }
    return callResult(envelope)
  }))
}
