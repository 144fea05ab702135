/**
 * The run loop, host-free: what the worker process does with a run. Every step is written before the
 * next one starts: a model turn, a tool call before it runs ("tool_call"), its outcome after
 * ("tool_result" / "refused"). On resume the messages are rebuilt from the transcript, and a call whose
 * outcome is unknown (started, never finished: the worker died in between) is not replayed: it is
 * recorded as unknown and the model is told.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Duration from "effect/Duration"
import { APPROVALS_FILE, ApprovalRecordSchema, ApprovalStoreSchema, EXPIRY_MS } from "../../gate/records.ts"
import type { Envelope } from "../../protocol/envelope.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import {
  Model,
  type ModelFailure,
  type ModelMessage,
  type ModelReply,
  type ModelTool,
  type ModelToolCall
} from "../../services/Model.ts"
import { RegisteredTools } from "../../services/RegisteredTools.ts"
import type { Settings } from "../../settings/settings.ts"
import { HOST_STATE_FILE, HostModeSchema } from "../../store/hostState.ts"
import { StateStore } from "../../store/StateStore.ts"
import { gateOf, type ToolContext } from "../Tool.ts"
import { innerGate } from "./lower.ts"
import type { RunResult, RunSpec, RunState } from "./schema.ts"
import { appendEntry, readRun, readTranscript, type TranscriptEntry, updateRun } from "./store.ts"

/** What the loop needs of the worker's registry (lowered settings). */
export interface LoopTools {
  readonly listing: ReadonlyArray<{
    readonly name: string
    readonly description: string
    readonly inputSchema: unknown
  }>
  readonly call: (tool: string, args: unknown) => Effect.Effect<Envelope, never, ToolContext>
}

/** The actions workspace_edit offers inside a run with commit_edits=false. */
export const PREVIEW_ACTIONS = ["preview", "show", "list"] as const
/** The tools a run is offered from the parent's registry (lowered); the rest (plan, agent, vcs, browser, notes) never are. */
export const RUN_TOOLS = ["workspace_inspect", "workspace_edit", "workspace_command", "workspace_tasks"] as const
const MODEL_ATTEMPTS = 3
/** The model a request names when neither the run nor the settings name one (the endpoint's default; in LM Studio, the loaded model). */
export const DEFAULT_MODEL_ID = "local-model"
const MODEL_TIMEOUT_MS = 300_000

export const FINISH_RUN: ModelTool = {
  name: "finish_run",
  description:
    "End this run with its result: summary, evidence (what shows the work is done: paths, transaction ids, job ids), remaining_work, confidence 0-1.",
  parameters: {
    type: "object",
    properties: {
      summary: { type: "string" },
      evidence: { type: "array", items: { type: "string" } },
      remaining_work: { type: "array", items: { type: "string" } },
      confidence: { type: "number", minimum: 0, maximum: 1 }
    },
    required: ["summary"]
  }
}
const WEB_SEARCH: ModelTool = {
  name: "web_search",
  description:
    "Search the web (workspace_research search): query, optional provider (auto, duckduckgo, wikipedia, searxng) and limit.",
  parameters: {
    type: "object",
    properties: { query: { type: "string" }, provider: { type: "string" }, limit: { type: "integer" } },
    required: ["query"]
  }
}
const FETCH_SOURCE: ModelTool = {
  name: "fetch_source",
  description:
    "Fetch a URL's readable text (workspace_research fetch); recorded as a source when the run has a research project.",
  parameters: { type: "object", properties: { url: { type: "string" } }, required: ["url"] }
}

/** The tools offered to the model: the lowered registry's run tools (edit limited to previews without commit_edits), web tools, finish_run. */
export const offeredTools = (
  spec: RunSpec,
  reach: { commitEdits: boolean; web: boolean },
  listing: LoopTools["listing"]
): ReadonlyArray<ModelTool> => {
  const tools: Array<ModelTool> = []
  for (const entry of listing) {
    if (!(RUN_TOOLS as ReadonlyArray<string>).includes(entry.name)) continue
    if (entry.name === "workspace_command" && !spec.allowCommands) continue
    let parameters = entry.inputSchema as any
    if (entry.name === "workspace_edit" && !reach.commitEdits) {
      parameters = {
        ...parameters,
        properties: {
          ...parameters.properties,
          action: { ...parameters.properties.action, enum: [...PREVIEW_ACTIONS] }
        }
      }
    }
    tools.push({ name: entry.name, description: entry.description, parameters })
  }
  if (reach.web) tools.push(WEB_SEARCH, FETCH_SOURCE)
  tools.push(FINISH_RUN)
  return tools
}

/** The system and first user message of a run. */
export const openingMessages = (spec: RunSpec): ReadonlyArray<ModelMessage> => [
  {
    role: "system",
    content: [
      `You are a ${spec.role === "" ? "sub-agent" : spec.role} working in a ${spec.mode} run inside a workspace, through the tools offered.`,
      spec.commitEdits
        ? "Your workspace_edit calls may commit."
        : "Your edits stay planned: workspace_edit offers preview, show and list only; the transaction ids you plan are cited in your evidence for the main model to commit.",
      spec.taskBoardId === null
        ? ""
        : `Work the task board ${spec.taskBoardId}: take the next item with workspace_tasks, and update it with evidence when done.`,
      spec.researchProjectId === null ? "" : `Record sources and notes in research project ${spec.researchProjectId}.`,
      "When done, call finish_run with summary, evidence, remaining_work and confidence; an answer without a tool call ends the run with that text as its summary."
    ]
      .filter((line) => line !== "")
      .join("\n")
  },
  { role: "user", content: spec.context === "" ? spec.objective : `${spec.objective}\n\nContext:\n${spec.context}` }
]

/** The conversation so far, and the calls that started but never finished, from the transcript. */
export const rebuild = (spec: RunSpec, entries: ReadonlyArray<TranscriptEntry>) => {
  const messages: Array<ModelMessage> = [...openingMessages(spec)]
  const started = new Map<string, { name: string; arguments: string }>()
  const settled = new Set<string>()
  let lastCalls: ReadonlyArray<ModelToolCall> = []
  for (const entry of entries) {
    if (entry.type === "model_turn") {
      const message = entry["message"] as { content: string | null; toolCalls: ReadonlyArray<ModelToolCall> }
      messages.push({ role: "assistant", content: message.content, toolCalls: message.toolCalls })
      lastCalls = message.toolCalls
    } else if (entry.type === "tool_call") {
      started.set(String(entry["callId"]), { name: String(entry["name"]), arguments: String(entry["arguments"]) })
    } else if (entry.type === "tool_result" || entry.type === "refused" || entry.type === "tool_unknown") {
      settled.add(String(entry["callId"]))
      messages.push({ role: "tool", toolCallId: String(entry["callId"]), content: String(entry["content"]) })
    } else if (entry.type === "note") {
      messages.push({ role: "user", content: String(entry["content"]) })
    }
  }
  const unknown = [...started.entries()].filter(([id]) => !settled.has(id)).map(([id, call]) => ({ id, ...call }))
  const unstarted = lastCalls.filter((call) => !started.has(call.id) && !settled.has(call.id))
  return { messages, unknown, unstarted }
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max)}… (clipped)`)

const strings = (value: unknown): ReadonlyArray<string> | undefined =>
  value === undefined ? [] : Array.isArray(value) && value.every((item) => typeof item === "string") ? value : undefined

/** finish_run's arguments, or why they are not acceptable. */
export const parseFinish = (args: Record<string, unknown>): RunResult | string => {
  if (typeof args["summary"] !== "string" || args["summary"].trim() === "")
    return "finish_run needs summary (a non-empty string)"
  const evidence = strings(args["evidence"])
  const remaining = strings(args["remaining_work"])
  if (evidence === undefined) return "evidence must be an array of strings"
  if (remaining === undefined) return "remaining_work must be an array of strings"
  const confidence = args["confidence"]
  if (confidence !== undefined && (typeof confidence !== "number" || !(confidence >= 0 && confidence <= 1)))
    return "confidence must be a number from 0 to 1"
  return {
    summary: args["summary"],
    evidence,
    remainingWork: remaining,
    confidence: typeof confidence === "number" ? confidence : null
  }
}

/**
 * The host's current permission mode, from `.agentic/host.json` (a long-running host writes it), decoded with
 * HostModeSchema (core/store/hostState.ts); absent: undefined. A file that is not JSON or holds no mode is
 * IO_ERROR naming it (StateStore.readJson): the gated call is then refused with that message.
 */
export const hostMode = Effect.gen(function* () {
  const store = yield* StateStore
  const host = yield* store.readJson(HOST_STATE_FILE, HostModeSchema)
  return host?.settings.permissionMode
})

/**
 * Whether the plan the run started under is still approved: read by id (the worker holds no approval key,
 * so it cannot sign; it only checks that the record the parent verified at entry is still approved and
 * not past its 24 hours). The store is decoded (core/gate/records.ts): a file that does not decode is
 * IO_ERROR naming it; a record that does not decode is never the approved one.
 */
export const planStillApproved = (planId: string | null) =>
  Effect.gen(function* () {
    if (planId === null) return false
    const store = yield* StateStore
    const approvals = yield* store.readJson(APPROVALS_FILE, ApprovalStoreSchema)
    const record = (approvals?.records ?? [])
      .map((candidate) => Option.getOrUndefined(decodeApprovalRecord(candidate)))
      .find((candidate) => candidate?.id === planId)
    const created = Date.parse(record?.createdAt ?? "")
    return record?.status === "approved" && !Number.isNaN(created) && created + EXPIRY_MS > Date.now()
  })

const decodeApprovalRecord = Schema.decodeUnknownOption(ApprovalRecordSchema)

type Outcome = {
  readonly kind: "result" | "refused"
  readonly content: string
  readonly envelope?: Envelope
  readonly finish?: RunResult
}

/** Records what an envelope changed (transactions, paths, jobs, sources) in the run's state. */
const track = (runId: string, tool: string, envelope: Envelope) => {
  const data = (envelope.data ?? {}) as Record<string, any>
  // Only these tools change what a run records; a read is not worth a locked state write.
  if (!envelope.ok || !["workspace_edit", "workspace_command", "workspace_research"].includes(tool)) return Effect.void
  return updateRun(runId, (state) => {
    const changed = { ...state.changed }
    const add = (list: ReadonlyArray<string>, value: unknown) =>
      typeof value === "string" && !list.includes(value) ? [...list, value] : list
    if (tool === "workspace_edit" && typeof data["transactionId"] === "string") {
      if (data["committed"] === true) {
        changed.transactions = add(changed.transactions, data["transactionId"])
        changed.plannedTransactions = changed.plannedTransactions.filter((id) => id !== data["transactionId"])
        const files = Array.isArray(data["transaction"]?.files) ? data["transaction"].files : []
        for (const file of files) changed.paths = add(changed.paths, typeof file === "string" ? file : file?.path)
      } else if (!changed.transactions.includes(data["transactionId"])) {
        changed.plannedTransactions = add(changed.plannedTransactions, data["transactionId"])
      }
    }
    if (tool === "workspace_command") changed.jobs = add(changed.jobs, data["jobId"])
    if (tool === "workspace_research") changed.sources = add(changed.sources, data["sourceId"])
    return { ...state, changed }
  }).pipe(Effect.ignore)
}

/** Runs one tool call the model asked for: the refusal, or the envelope. */
const dispatch = (
  state: RunState,
  tools: LoopTools,
  offered: ReadonlyArray<ModelTool>,
  call: ModelToolCall,
  maxChars: number
) =>
  Effect.gen(function* () {
    const refused = (content: string): Outcome => ({ kind: "refused", content })
    const names = offered.map((tool) => tool.name)
    if (!names.includes(call.name)) {
      return refused(
        `REFUSED: ${call.name === "" ? "a call without a tool name" : call.name} is not offered in this run (offered: ${names.join(", ")}). A run cannot start a run, propose a plan, approve anything or change a setting.`
      )
    }
    let args: Record<string, unknown>
    try {
      const parsed = JSON.parse(call.arguments === "" ? "{}" : call.arguments)
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object")
      args = parsed as Record<string, unknown>
    } catch {
      return refused(
        `REFUSED: the arguments of ${call.name} are not a JSON object (${clip(call.arguments, 200)}). Call it again with a JSON object.`
      )
    }
    if (call.name === "finish_run") {
      const finish = parseFinish(args)
      return typeof finish === "string"
        ? refused(`REFUSED: ${finish}.`)
        : ({ kind: "result", content: "Run finished.", finish } satisfies Outcome)
    }
    let tool = call.name
    let toolArgs: Record<string, unknown> = args
    const research = state.spec.researchProjectId === null ? {} : { research_id: state.spec.researchProjectId }
    if (call.name === "web_search")
      [tool, toolArgs] = ["workspace_research", { ...args, action: "search", ...research }]
    if (call.name === "fetch_source")
      [tool, toolArgs] = ["workspace_research", { ...args, action: "fetch", ...research }]
    if (
      tool === "workspace_edit" &&
      !state.spec.commitEdits &&
      !(PREVIEW_ACTIONS as ReadonlyArray<unknown>).includes(args["action"])
    ) {
      return refused(
        `REFUSED: this run has commit_edits=false: workspace_edit offers only ${PREVIEW_ACTIONS.join(", ")}. Preview the edit; its transaction id is cited in the run's evidence for the main model to commit.`
      )
    }
    const registered = yield* RegisteredTools
    const definition = registered.registered.find((candidate) => candidate.name === tool)
    const kind =
      definition === undefined || typeof toolArgs["action"] !== "string"
        ? undefined
        : gateOf(definition, toolArgs["action"])
    if (kind !== undefined) {
      const current = yield* Effect.either(Effect.all([hostMode, planStillApproved(state.entryPlanId)]))
      // An unreadable host or approvals file: the gated call is refused, naming the file and its repair.
      if (Either.isLeft(current)) return refused(`REFUSED: ${current.left.message}`)
      const [mode, approved] = current.right
      const verdict = innerGate(state.entryMode, mode ?? state.entryMode, approved)
      if (verdict._tag === "Refuse") return refused(`REFUSED: ${verdict.message}`)
    }
    const envelope = yield* tools.call(tool, toolArgs)
    yield* track(state.runId, tool, envelope)
    return { kind: "result", content: clip(JSON.stringify(envelope), maxChars), envelope } satisfies Outcome
  })

/** The model's reply, retried on an unreachable endpoint (3 attempts in all). */
const ask = (
  settings: Settings,
  spec: RunSpec,
  messages: ReadonlyArray<ModelMessage>,
  tools: ReadonlyArray<ModelTool>
) =>
  Effect.flatMap(Model, (model) =>
    model
      .complete({
        baseUrl: settings.modelBaseUrl,
        model: spec.modelId !== "" ? spec.modelId : settings.modelId !== "" ? settings.modelId : DEFAULT_MODEL_ID,
        apiKeyEnv: settings.modelApiKeyEnv,
        messages,
        tools,
        stream: settings.modelStreaming,
        timeoutMs: MODEL_TIMEOUT_MS
      })
      .pipe(
        Effect.retry({
          schedule: Schedule.exponential(Duration.millis(200)),
          times: MODEL_ATTEMPTS - 1,
          while: (failure: ModelFailure) => failure._tag === "ModelUnreachable"
        })
      )
  )

const end = (runId: string, patch: Partial<RunState>) =>
  Effect.flatMap(
    Effect.map(
      Effect.sync(() => new Date().toISOString()),
      (endedAt) => endedAt
    ),
    (endedAt) => updateRun(runId, (state) => ({ ...state, ...patch, endedAt }))
  )

/** The final result with the planned transactions appended to the evidence. */
const withPlanned = (result: RunResult, state: RunState): RunResult => ({
  ...result,
  evidence: [
    ...result.evidence,
    ...state.changed.plannedTransactions
      .filter((id) => !result.evidence.some((line) => line.includes(id)))
      .map(
        (id) =>
          `planned transaction ${id} (not committed: commit it with workspace_edit {"action":"commit","transaction_id":"${id}"})`
      )
  ]
})

/** Runs (or resumes) the run until it ends, is cancelled, or its budget runs out. */
export const runLoop = (runId: string, tools: LoopTools): Effect.Effect<void, unknown, ToolContext | Model> =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const source = (yield* Model).source
    const first = yield* readRun(runId)
    if (first.status !== "running") return
    const spec = first.spec
    const reach = { commitEdits: spec.commitEdits, web: spec.allowWeb }
    const offered = offeredTools(spec, reach, tools.listing)
    const rebuilt = rebuild(spec, yield* readTranscript(runId))
    const messages = rebuilt.messages
    const say = (entry: TranscriptEntry, message?: ModelMessage) =>
      Effect.zipRight(
        appendEntry(runId, entry),
        Effect.sync(() => (message === undefined ? undefined : messages.push(message)))
      )
    for (const call of rebuilt.unknown) {
      const content = `UNKNOWN OUTCOME: the worker stopped while ${call.name} was running; it was not replayed. Check its effect (workspace_inspect changes) before doing it again.`
      yield* say(
        { type: "tool_unknown", callId: call.id, name: call.name, arguments: call.arguments, content },
        { role: "tool", toolCallId: call.id, content }
      )
    }
    if (rebuilt.unknown.length > 0 || first.used.rounds > 0) {
      yield* say(
        { type: "note", content: "The run was resumed after its worker stopped." },
        { role: "user", content: "The run was resumed after its worker stopped; continue toward the objective." }
      )
    }
    const maxChars = Math.min(settings.maxToolResultChars, 20_000)

    /** Runs the calls of one turn; returns the finish result, a budget stop, or nothing. */
    const runCalls = (calls: ReadonlyArray<ModelToolCall>) =>
      Effect.gen(function* () {
        for (const call of calls) {
          const state = yield* readRun(runId)
          if (state.status !== "running") return { stop: "cancelled" as const }
          if (state.used.toolCalls >= spec.maxToolCalls) return { stop: "max_tool_calls" as const }
          yield* appendEntry(runId, { type: "tool_call", callId: call.id, name: call.name, arguments: call.arguments })
          yield* updateRun(runId, (current) => ({
            ...current,
            used: { ...current.used, toolCalls: current.used.toolCalls + 1 }
          }))
          const outcome = yield* dispatch(state, tools, offered, call, maxChars)
          yield* say(
            {
              type: outcome.kind === "refused" ? "refused" : "tool_result",
              callId: call.id,
              name: call.name,
              content: outcome.content,
              ...(outcome.envelope === undefined ? {} : { envelope: outcome.envelope })
            },
            { role: "tool", toolCallId: call.id, content: outcome.content }
          )
          if (outcome.finish !== undefined) return { finish: outcome.finish }
        }
        return {}
      })

    const settle = (step: { stop?: string; finish?: RunResult }) =>
      Effect.gen(function* () {
        if (step.stop === "cancelled") return true
        const state = yield* readRun(runId)
        if (step.finish !== undefined) {
          yield* end(runId, { status: "completed", result: withPlanned(step.finish, state) })
          return true
        }
        if (step.stop !== undefined) {
          yield* end(runId, {
            status: "completed",
            stopReason: step.stop,
            result: withPlanned(
              {
                summary: `The run stopped: its ${step.stop} budget ran out before it finished.`,
                evidence: [],
                remainingWork: ["the objective was not confirmed finished"],
                confidence: null
              },
              state
            )
          })
          return true
        }
        return false
      })

    if (rebuilt.unstarted.length > 0 && (yield* settle(yield* runCalls(rebuilt.unstarted)))) return

    while (true) {
      const state = yield* readRun(runId)
      if (state.status !== "running") return
      if (state.used.rounds >= spec.maxPasses * spec.roundsPerPass) {
        yield* settle({ stop: "max_passes" })
        return
      }
      if (
        state.used.rounds > 0 &&
        state.used.rounds % spec.roundsPerPass === 0 &&
        state.used.passes < Math.floor(state.used.rounds / spec.roundsPerPass) + 1
      ) {
        const pass = state.used.rounds / spec.roundsPerPass + 1
        yield* updateRun(runId, (current) => ({ ...current, used: { ...current.used, passes: pass } }))
        const content = `Pass ${pass - 1} of ${spec.maxPasses} ended. Continue toward the objective, or call finish_run.`
        yield* say({ type: "note", content }, { role: "user", content })
      }
      const replied = yield* Effect.either(ask(settings, spec, messages, offered))
      if (replied._tag === "Left") {
        const failure = replied.left
        if (failure._tag === "ModelUnreachable") {
          yield* appendEntry(runId, { type: "model_error", message: failure.message, attempts: MODEL_ATTEMPTS })
          yield* end(runId, {
            status: "failed",
            error: {
              code: "MODEL_UNAVAILABLE",
              message:
                source === undefined
                  ? `The model endpoint (modelBaseUrl ${settings.modelBaseUrl}) was unreachable after ${MODEL_ATTEMPTS} attempts: ${failure.message}. Check that the model server runs, or change the setting modelBaseUrl.`
                  : `The model (${source.where}) was unreachable after ${MODEL_ATTEMPTS} attempts: ${failure.message}. ${source.repair}`
            }
          })
          return
        }
        const content = `The model endpoint rejected the last request (${failure.message}); continue, or call finish_run.`
        yield* updateRun(runId, (current) => ({
          ...current,
          used: { ...current.used, rounds: current.used.rounds + 1 }
        }))
        yield* say({ type: "model_error", message: failure.message }, { role: "user", content })
        continue
      }
      const reply: ModelReply = replied.right
      const calls = reply.toolCalls.map((call, index) => ({
        ...call,
        id: call.id === "" ? `call_${state.used.rounds}_${index}` : call.id
      }))
      yield* say(
        { type: "model_turn", round: state.used.rounds + 1, message: { content: reply.content, toolCalls: calls } },
        { role: "assistant", content: reply.content, toolCalls: calls }
      )
      yield* updateRun(runId, (current) => ({
        ...current,
        used: { ...current.used, rounds: current.used.rounds + 1, passes: Math.max(current.used.passes, 1) }
      }))
      if (calls.length === 0) {
        const now = yield* readRun(runId)
        yield* end(runId, {
          status: "completed",
          result: withPlanned({ summary: reply.content ?? "", evidence: [], remainingWork: [], confidence: null }, now)
        })
        return
      }
      if (yield* settle(yield* runCalls(calls))) return
    }
  })
