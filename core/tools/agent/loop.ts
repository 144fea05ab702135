/**
 * The run loop, host-free: what the worker process does with a run. Every step is written before the
 * next one starts: a model turn, a tool call before it runs ("tool_call"), its outcome after
 * ("tool_result" / "refused"). On resume the messages are rebuilt from the transcript, and a call whose
 * outcome is unknown (started, never finished: the worker died in between) is not replayed: it is
 * recorded as unknown and the model is told.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schedule from "effect/Schedule"
import * as Duration from "effect/Duration"
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
import { gateOf, type ToolContext } from "../Tool.ts"
import { defined } from "../../text/defined.ts"
import { rebuild } from "./conversation.ts"
import { parseFinish, withPlanned } from "./finish.ts"
import { hostMode, planStillApproved } from "./gateState.ts"
import { innerGate } from "./lower.ts"
import type { RunResult, RunSpec, RunState } from "./schema.ts"
import { appendEntry, readRun, readTranscript, type TranscriptEntry, updateRun } from "./store.ts"
import { nowIso } from "../../text/time.ts"

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

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max)}… (clipped)`)

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
  Effect.flatMap(nowIso, (endedAt) => updateRun(runId, (state) => ({ ...state, ...patch, endedAt })))

/** One run's loop as it goes: what it was given, what it offers, and the messages so far (appended as it goes). */
interface Loop {
  readonly runId: string
  readonly spec: RunSpec
  readonly settings: Settings
  /** Where the model comes from and how to repair it, when the Model layer says (its failure message names it). */
  readonly source: { readonly where: string; readonly repair: string } | undefined
  readonly tools: LoopTools
  readonly offered: ReadonlyArray<ModelTool>
  readonly messages: Array<ModelMessage>
  /** The characters of a tool result the model is shown. */
  readonly maxChars: number
}

/** How a turn's calls ended: a finish_run result, a budget stop or cancellation, or neither (the loop goes on). */
type Step = { readonly stop?: string; readonly finish?: RunResult }

/** Writes a transcript entry and then adds its message (if any) to the conversation. */
const say = (loop: Loop, entry: TranscriptEntry, message?: ModelMessage) =>
  Effect.zipRight(
    appendEntry(loop.runId, entry),
    Effect.sync(() => (message === undefined ? undefined : loop.messages.push(message)))
  )

/** On resume: each call whose outcome is unknown is recorded as such (never replayed), and the model is told. */
const recordResume = (loop: Loop, unknown: ReturnType<typeof rebuild>["unknown"], resumed: boolean) =>
  Effect.gen(function* () {
    for (const call of unknown) {
      const content = `UNKNOWN OUTCOME: the worker stopped while ${call.name} was running; it was not replayed. Check its effect (workspace_inspect changes) before doing it again.`
      yield* say(
        loop,
        { type: "tool_unknown", callId: call.id, name: call.name, arguments: call.arguments, content },
        { role: "tool", toolCallId: call.id, content }
      )
    }
    if (unknown.length > 0 || resumed) {
      yield* say(
        loop,
        { type: "note", content: "The run was resumed after its worker stopped." },
        { role: "user", content: "The run was resumed after its worker stopped; continue toward the objective." }
      )
    }
  })

/** Runs the calls of one turn, each recorded before it runs and after; stops at a finish, a budget or a cancel. */
const runCalls = (loop: Loop, calls: ReadonlyArray<ModelToolCall>) =>
  Effect.gen(function* () {
    for (const call of calls) {
      const state = yield* readRun(loop.runId)
      if (state.status !== "running") return { stop: "cancelled" } satisfies Step
      if (state.used.toolCalls >= loop.spec.maxToolCalls) return { stop: "max_tool_calls" } satisfies Step
      yield* appendEntry(loop.runId, {
        type: "tool_call",
        callId: call.id,
        name: call.name,
        arguments: call.arguments
      })
      yield* updateRun(loop.runId, (current) => ({
        ...current,
        used: { ...current.used, toolCalls: current.used.toolCalls + 1 }
      }))
      const outcome = yield* dispatch(state, loop.tools, loop.offered, call, loop.maxChars)
      yield* say(
        loop,
        {
          type: outcome.kind === "refused" ? "refused" : "tool_result",
          callId: call.id,
          name: call.name,
          content: outcome.content,
          ...defined({ envelope: outcome.envelope })
        },
        { role: "tool", toolCallId: call.id, content: outcome.content }
      )
      if (outcome.finish !== undefined) return { finish: outcome.finish } satisfies Step
    }
    return {} satisfies Step
  })

/** Ends the run when a step says so (completed with its result, or with the budget that ran out); true when ended. */
const settle = (loop: Loop, step: Step) =>
  Effect.gen(function* () {
    if (step.stop === "cancelled") return true
    const state = yield* readRun(loop.runId)
    if (step.finish !== undefined) {
      yield* end(loop.runId, { status: "completed", result: withPlanned(step.finish, state) })
      return true
    }
    if (step.stop !== undefined) {
      yield* end(loop.runId, {
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

/** At a pass boundary (every roundsPerPass rounds), counts the new pass and tells the model. */
const startPass = (loop: Loop, state: RunState) =>
  Effect.gen(function* () {
    const { spec } = loop
    if (
      state.used.rounds > 0 &&
      state.used.rounds % spec.roundsPerPass === 0 &&
      state.used.passes < Math.floor(state.used.rounds / spec.roundsPerPass) + 1
    ) {
      const pass = state.used.rounds / spec.roundsPerPass + 1
      yield* updateRun(loop.runId, (current) => ({ ...current, used: { ...current.used, passes: pass } }))
      const content = `Pass ${pass - 1} of ${spec.maxPasses} ended. Continue toward the objective, or call finish_run.`
      yield* say(loop, { type: "note", content }, { role: "user", content })
    }
  })

/**
 * A model request that failed: an endpoint unreachable after every attempt fails the run (MODEL_UNAVAILABLE,
 * naming the repair); a rejected request costs a round and the model is told. True when the run ended.
 */
const modelFailed = (loop: Loop, failure: ModelFailure) =>
  Effect.gen(function* () {
    if (failure._tag === "ModelUnreachable") {
      yield* appendEntry(loop.runId, { type: "model_error", message: failure.message, attempts: MODEL_ATTEMPTS })
      yield* end(loop.runId, {
        status: "failed",
        error: {
          code: "MODEL_UNAVAILABLE",
          message:
            loop.source === undefined
              ? `The model endpoint (modelBaseUrl ${loop.settings.modelBaseUrl}) was unreachable after ${MODEL_ATTEMPTS} attempts: ${failure.message}. Check that the model server runs, or change the setting modelBaseUrl.`
              : `The model (${loop.source.where}) was unreachable after ${MODEL_ATTEMPTS} attempts: ${failure.message}. ${loop.source.repair}`
        }
      })
      return true
    }
    const content = `The model endpoint rejected the last request (${failure.message}); continue, or call finish_run.`
    yield* updateRun(loop.runId, (current) => ({
      ...current,
      used: { ...current.used, rounds: current.used.rounds + 1 }
    }))
    yield* say(loop, { type: "model_error", message: failure.message }, { role: "user", content })
    return false
  })

/** One round: the model's reply recorded, then its calls run; a reply without calls completes the run with its text. True when the run ended. */
const takeTurn = (loop: Loop, state: RunState) =>
  Effect.gen(function* () {
    const replied = yield* Effect.either(ask(loop.settings, loop.spec, loop.messages, loop.offered))
    if (Either.isLeft(replied)) return yield* modelFailed(loop, replied.left)
    const reply: ModelReply = replied.right
    const calls = reply.toolCalls.map((call, index) => ({
      ...call,
      id: call.id === "" ? `call_${state.used.rounds}_${index}` : call.id
    }))
    yield* say(
      loop,
      { type: "model_turn", round: state.used.rounds + 1, message: { content: reply.content, toolCalls: calls } },
      { role: "assistant", content: reply.content, toolCalls: calls }
    )
    yield* updateRun(loop.runId, (current) => ({
      ...current,
      used: { ...current.used, rounds: current.used.rounds + 1, passes: Math.max(current.used.passes, 1) }
    }))
    if (calls.length === 0) {
      const now = yield* readRun(loop.runId)
      yield* end(loop.runId, {
        status: "completed",
        result: withPlanned({ summary: reply.content ?? "", evidence: [], remainingWork: [], confidence: null }, now)
      })
      return true
    }
    return yield* settle(loop, yield* runCalls(loop, calls))
  })

/** Runs (or resumes) the run until it ends, is cancelled, or its budget runs out. */
export const runLoop = (runId: string, tools: LoopTools): Effect.Effect<void, unknown, ToolContext | Model> =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const source = (yield* Model).source
    const first = yield* readRun(runId)
    if (first.status !== "running") return
    const spec = first.spec
    const offered = offeredTools(spec, { commitEdits: spec.commitEdits, web: spec.allowWeb }, tools.listing)
    const rebuilt = rebuild(spec, yield* readTranscript(runId))
    const loop: Loop = {
      runId,
      spec,
      settings,
      source,
      tools,
      offered,
      messages: rebuilt.messages,
      maxChars: Math.min(settings.maxToolResultChars, 20_000)
    }
    yield* recordResume(loop, rebuilt.unknown, first.used.rounds > 0)
    // The calls of the last turn that never started (the worker stopped before them) run first.
    if (rebuilt.unstarted.length > 0 && (yield* settle(loop, yield* runCalls(loop, rebuilt.unstarted)))) return
    while (true) {
      const state = yield* readRun(runId)
      if (state.status !== "running") return
      if (state.used.rounds >= spec.maxPasses * spec.roundsPerPass) {
        yield* settle(loop, { stop: "max_passes" })
        return
      }
      yield* startPass(loop, state)
      if (yield* takeTurn(loop, state)) return
    }
  })
