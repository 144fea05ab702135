/** workspace_inspect capabilities and changes, and the plan/approval/memory state overview shows. */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { changeSourcesOf, storageMapOf } from "../../contributions.ts"
import { loadRecordState, loadRecords } from "../../gate/gate.ts"
import { ProcessReads } from "../../services/Processes.ts"
import { decideSandbox } from "../../services/Sandbox.ts"
import { type ApprovalRecord, approvedPlan, pendingPlan, pendingRecords } from "../../gate/records.ts"
import type { Artifact, ToolResult } from "../../protocol/envelope.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { modeLabel, modeName, type Settings } from "../../settings/settings.ts"
import type { Unsettled as UnsettledTransaction } from "../edit/commit.ts"
import { type ChangeSource, deferred, type StorageEntry, type ToolDefinition } from "../Tool.ts"
import { StateReads } from "../../store/StateStore.ts"
import { RegisteredTools } from "../../services/RegisteredTools.ts"
import { envelopeChars, placeholderArtifact, writeArtifact } from "./budget.ts"
import { largestFitting } from "./paging.ts"
import { plural } from "./common.ts"
import { defined } from "../../text/defined.ts"

/**
 * Plan, approval and memory state, for capabilities and overview. `top`, the names in `.agentic/` listed
 * by this same call, spares the probes of what is not there (no approvals folder: no records to read).
 */
const stateSummaryIn = (top?: ReadonlySet<string>) =>
  Effect.gen(function* () {
    const store = yield* StateReads
    const settings = yield* CurrentSettings
    const there = (name: string) => top === undefined || top.has(name)
    const { records, untrusted } = there("approvals") ? yield* loadRecordState : { records: [], untrusted: 0 }
    const active = approvedPlan(records)
    const pending = pendingPlan(records)
    const pendingApprovals = pendingRecords(records).filter((record) => record.kind !== "plan")
    const planView = (record: ApprovalRecord | undefined) =>
      record === undefined
        ? null
        : {
            id: record.id,
            title: record.title,
            status: record.status,
            createdAt: record.createdAt,
            planPath: record.planPath ?? store.path(`plans/${record.id}/plan.md`)
          }
    const memory = there("MEMORY.md") ? yield* store.stat("MEMORY.md") : undefined
    const notes = (there("notes") ? yield* store.list("notes") : []).filter(
      (entry) => entry.type === "file" && entry.name.endsWith(".md")
    )
    return {
      permissionMode: modeName(settings.permissionMode),
      permissionLevel: settings.permissionMode,
      activePlan: planView(active),
      pendingPlan: planView(pending),
      pendingApprovals: pendingApprovals.length,
      untrustedRecords: untrusted,
      notes: { count: notes.length, memoryExists: memory !== undefined, memoryPath: store.path("MEMORY.md") }
    }
  })

/** Plan, approval and memory state, for capabilities and overview. */
export const stateSummary = stateSummaryIn()

export const stateFacts = (state: Effect.Effect.Success<typeof stateSummary>) => [
  `permission mode ${modeLabel(state.permissionLevel)}`,
  state.activePlan === null ? "no approved plan" : `approved plan ${state.activePlan.id}: ${state.activePlan.title}`,
  ...(state.pendingPlan === null ? [] : [`pending plan ${state.pendingPlan.id}: ${state.pendingPlan.title}`]),
  `${plural(state.pendingApprovals, "pending approval")}`,
  ...(state.untrustedRecords === 0
    ? []
    : [
        `${plural(state.untrustedRecords, "untrusted approval record")} ignored (MAC does not verify): re-issue the call to stage a fresh one`
      ]),
  `MEMORY.md ${state.notes.memoryExists ? `present at ${state.notes.memoryPath}` : "absent"}; ${plural(state.notes.count, "note")}`
]

/** The registered tools' `changes` sources (by rank), and their lists under their keys (each present, maybe empty). */
const sourcedLists = Effect.gen(function* () {
  const { candidates } = yield* RegisteredTools
  const sources = changeSourcesOf(candidates)
  const sourced: Record<string, ReadonlyArray<unknown>> = {}
  for (const source of sources) sourced[source.key] = [...(sourced[source.key] ?? []), ...(yield* source.list)]
  return { sources, sourced }
})

/** The approvals still open (pending or approved), plans aside. */
const openApprovals = (records: ReadonlyArray<ApprovalRecord>) =>
  records
    .filter((record) => record.kind !== "plan" && (record.status === "pending" || record.status === "approved"))
    .map((record) => ({
      id: record.id,
      kind: record.kind,
      status: record.status,
      title: record.title,
      createdAt: record.createdAt,
      ...defined({ tool: record.tool, operation: record.operation }),
      destructive: record.destructive ?? false,
      ...defined({ resume: record.resume })
    }))

/** The newest 20 plans, with where each plan file is. */
const recentPlans = (records: ReadonlyArray<ApprovalRecord>, planPath: (id: string) => string) =>
  records
    .filter((record) => record.kind === "plan")
    .slice(0, 20)
    .map((record) => ({
      id: record.id,
      status: record.status,
      title: record.title,
      revision: record.revision ?? 1,
      createdAt: record.createdAt,
      planPath: record.planPath ?? planPath(record.id)
    }))

type ChangesData = Record<string, ReadonlyArray<unknown>> & {
  readonly approvals: ReturnType<typeof openApprovals>
  readonly plans: ReturnType<typeof recentPlans>
}

/**
 * What the changes listing keeps through compression: each source's facts (job ids, recent vcs steps), open
 * approvals and plans; every list but those a source keeps (jobs) may be omitted when summarizing.
 */
const changesRetention = (sources: ReadonlyArray<ChangeSource>, data: ChangesData): ToolResult["retention"] => ({
  importance: "high",
  facts: [
    ...keysOf(sources).flatMap(
      (key) => sources.find((source) => source.key === key && source.facts)?.facts?.(data[key] ?? []) ?? []
    ),
    ...data.approvals.slice(0, 10).map((approval) => `approval ${approval.id} ${approval.status}: ${approval.title}`),
    ...data.plans
      .filter((plan) => plan.status === "pending" || plan.status === "approved")
      .map((plan) => `plan ${plan.id} ${plan.status}: ${plan.planPath}`)
  ],
  omit_when_summarizing: keysOf(sources).filter((key) => keptAtLeast(sources, key) === undefined)
})

/** The keys of these sources, each once, in rank order (several tools may contribute to one key). */
const keysOf = (sources: ReadonlyArray<ChangeSource>): ReadonlyArray<string> => [
  ...new Set(sources.map((source) => source.key))
]

/** The most entries any source of this key asks to keep (undefined: the list may be omitted when summarizing). */
const keptAtLeast = (sources: ReadonlyArray<ChangeSource>, key: string): number | undefined => {
  const asked = sources.flatMap((source) =>
    source.key === key && source.keepAtLeast !== undefined ? [source.keepAtLeast] : []
  )
  return asked.length === 0 ? undefined : Math.max(...asked)
}

/**
 * A changes listing too large for one envelope: every list keeps its newest entries (the same count for all,
 * jobs first to keep), and the full listing goes to an artifact.
 */
const trimmedChanges = (whole: ToolResult, sources: ReadonlyArray<ChangeSource>, data: ChangesData, budget: number) =>
  Effect.gen(function* () {
    const description = "The full changes listing, as JSON."
    const trimmed = (keep: number, artifact: Artifact): ToolResult => {
      const cut = Object.fromEntries(
        Object.entries(data).map(([key, list]) => [key, list.slice(0, Math.max(keep, keptAtLeast(sources, key) ?? 0))])
      )
      const truncated = Object.fromEntries(
        Object.entries(data)
          .filter(([key, list]) => (cut[key]?.length ?? 0) < list.length)
          .map(([key, list]) => [key, list.length])
      )
      return {
        summary: `${whole.summary} Only the newest ${keep} of each list are shown (totals in data.truncated) to fit maxToolResultChars; the full listing is in ${artifact.path}.`,
        data: { ...cut, truncated },
        ...defined({ retention: whole.retention }),
        artifacts: [artifact]
      }
    }
    const longest = Math.max(...Object.values(data).map((list) => list.length))
    const placeholder = placeholderArtifact("inspect.changes", "changes", "json", description)
    const keep = Math.max(
      0,
      largestFitting(longest, (n) => envelopeChars("inspect.changes", trimmed(n, placeholder)) <= budget)
    )
    const artifact = yield* writeArtifact("inspect.changes", "changes", "json", JSON.stringify(data), description)
    return trimmed(keep, artifact)
  })

export const changes = Effect.gen(function* () {
  const store = yield* StateReads
  const records = yield* loadRecords
  const { sources, sourced } = yield* sourcedLists
  const approvals = openApprovals(records)
  const plans = recentPlans(records, (id) => store.path(`plans/${id}/plan.md`))
  const data: ChangesData = { ...sourced, approvals, plans }
  const counts = Object.entries(data).map(([key, list]) => `${list.length} ${key}`)
  const summary = `Recovery listing: ${counts.join(", ")}.`
  const whole: ToolResult = { summary, data, retention: changesRetention(sources, data) }
  const settings = yield* CurrentSettings
  if (envelopeChars("inspect.changes", whole) <= settings.maxToolResultChars) return whole
  return yield* trimmedChanges(whole, sources, data, settings.maxToolResultChars)
})

/** Whether commands run sandboxed here, how, and why not (capabilities). */
const sandboxReport = Effect.gen(function* () {
  const settings = yield* CurrentSettings
  // A host without processes provides a Processes layer that reports no sandbox (ProcessReads is its half).
  const support = yield* (yield* ProcessReads).sandbox
  const decision = decideSandbox(settings.commandSandbox, support)
  const active = "_tag" in decision && decision._tag === "Sandboxed"
  const reason = active
    ? undefined
    : settings.commandSandbox === "off"
      ? 'commandSandbox is "off"'
      : (support.reason ?? "unavailable")
  return {
    setting: settings.commandSandbox,
    active,
    mechanism: support.mechanism,
    network: active ? settings.allowCommandNetwork : true,
    capture: active && support.capture,
    ...defined({ reason }),
    ...(settings.commandSandbox === "required" && !support.available ? { commandsRefused: true } : {})
  }
})

/** The names at the top of `.agentic/`, listed once for every probe; undefined when the listing failed. */
const stateTop = Effect.gen(function* () {
  const store = yield* StateReads
  const listed = yield* Effect.option(store.list(""))
  return Option.isSome(listed) ? new Set(listed.value.map((entry) => entry.name)) : undefined
})

/**
 * Whether each storage entry exists: a top-level probe is answered by the listing, a nested one
 * (approvals/state.json) is stat'ed only when its folder is there. A failed listing finds nothing.
 */
const probedStorage = (entries: ReadonlyArray<StorageEntry>, top: ReadonlySet<string> | undefined) =>
  Effect.gen(function* () {
    const store = yield* StateReads
    const found: Array<{ name: string; path: string; description: string; exists: boolean }> = []
    for (const entry of entries) {
      const first = entry.probe.split("/")[0]!
      const exists =
        top === undefined || !top.has(first)
          ? false
          : first === entry.probe || (yield* store.stat(entry.probe)) !== undefined
      found.push({ name: entry.name, path: entry.path, description: entry.description, exists })
    }
    return found
  })

type StateSummary = Effect.Effect.Success<typeof stateSummary>
type SandboxReport = Effect.Effect.Success<typeof sandboxReport>
type Unsettled = ReadonlyArray<UnsettledTransaction>

/** What one capabilities answer is made of, whatever rendering of the storage map it carries. */
interface CapabilitiesParts {
  readonly settings: Settings
  readonly state: StateSummary
  readonly sandbox: SandboxReport
  readonly unsettled: Unsettled
  readonly tools: ReadonlyArray<string>
}

/** The capabilities summary line; `withTools` names the registered tools too. */
const capabilitiesSummary = ({ settings, state, sandbox, unsettled, tools }: CapabilitiesParts, withTools: boolean) =>
  `Permission mode ${modeLabel(settings.permissionMode)}; ${state.activePlan === null ? "no approved plan" : `approved plan ${state.activePlan.id}`}${
    state.pendingPlan === null ? "" : `, plan ${state.pendingPlan.id} pending`
  }; ${plural(state.pendingApprovals, "pending approval")}; ${plural(state.notes.count, "note")}, MEMORY.md ${state.notes.memoryExists ? "present" : "absent"}; commands ${
    sandbox.active
      ? `sandboxed (${sandbox.mechanism}${sandbox.network ? ", network shared" : ", no network"})`
      : `not sandboxed (${sandbox.reason})`
  }.${
    unsettled.length === 0
      ? ""
      : ` ${plural(unsettled.length, "transaction")} left unsettled by recovery: ${unsettled.map((item) => item.transactionId).join(", ")} (see data.unsettledTransactions).`
  }${withTools ? ` Tools: ${tools.join(", ")}.` : ""}`

/** The capabilities answer carrying `entries` as its storage map; without `withTools`, the compact form. */
const capabilitiesResult = (parts: CapabilitiesParts, entries: unknown, withTools: boolean): ToolResult => {
  const { settings, state, sandbox, unsettled, tools } = parts
  return {
    summary: capabilitiesSummary(parts, withTools),
    data: withTools
      ? {
          ...state,
          ...(unsettled.length === 0 ? {} : { unsettledTransactions: unsettled }),
          sandbox,
          tools,
          storage: { root: ".agentic/", readable: true, writableByModel: false, entries },
          maxToolResultChars: settings.maxToolResultChars
        }
      : {
          ...state,
          ...(unsettled.length === 0 ? {} : { unsettledTransactions: unsettled.map((item) => item.transactionId) }),
          sandbox: { active: sandbox.active },
          tools,
          storage: { root: ".agentic/", entries }
        },
    retention: {
      importance: "high",
      facts: withTools ? [...stateFacts(state), `tools: ${tools.join(", ")}`] : stateFacts(state).slice(0, 2)
    }
  }
}

/**
 * The largest rendering that fits the budget: the whole storage map, then without descriptions, then name and
 * path only, then a name -> path object without the tools' detail, and at the smallest budget the names only
 * (each path is in docs/INSPECT.md and in larger results). Built one at a time, largest first, so a call whose
 * budget fits the whole answer builds and measures only that one.
 */
const fittingCapabilities = (
  parts: CapabilitiesParts,
  storage: Effect.Effect.Success<ReturnType<typeof probedStorage>>
) => {
  const variants = [
    () => capabilitiesResult(parts, storage, true),
    () =>
      capabilitiesResult(
        parts,
        storage.map(({ description: _, ...rest }) => rest),
        true
      ),
    () =>
      capabilitiesResult(
        parts,
        storage.map((entry) => ({ name: entry.name, path: entry.path })),
        true
      ),
    () => capabilitiesResult(parts, Object.fromEntries(storage.map((entry) => [entry.name, entry.path])), false)
  ]
  for (const variant of variants) {
    const built = variant()
    if (envelopeChars("inspect.capabilities", built) <= parts.settings.maxToolResultChars) return built
  }
  return capabilitiesResult(
    parts,
    storage.map((entry) => entry.name),
    false
  )
}

/** The registered tools' names, kept per registered list (one for the session). */
const toolNames = (() => {
  const kept = new WeakMap<ReadonlyArray<ToolDefinition>, ReadonlyArray<string>>()
  return (registered: ReadonlyArray<ToolDefinition>) => {
    const known = kept.get(registered)
    if (known !== undefined) return known
    const names = registered.map((tool) => tool.name)
    kept.set(registered, names)
    return names
  }
})()

/**
 * The last answer per session (its settings, fixed for the session) and what it was made of: an answer whose
 * parts are the same as the last one's is that answer, not built and measured against the budget again.
 */
const lastAnswer = new WeakMap<
  Settings,
  { readonly key: string; readonly tools: ReadonlyArray<string>; readonly result: ToolResult }
>()

/** The fitting answer for these parts, kept while the parts stay the same. */
const answerFor = (
  parts: CapabilitiesParts,
  storage: Effect.Effect.Success<ReturnType<typeof probedStorage>>
): ToolResult => {
  const key = JSON.stringify([parts.state, parts.sandbox, parts.unsettled, storage])
  const last = lastAnswer.get(parts.settings)
  if (last !== undefined && last.key === key && last.tools === parts.tools) return last.result
  const result = fittingCapabilities(parts, storage)
  lastAnswer.set(parts.settings, { key, tools: parts.tools, result })
  return result
}

export const capabilities = Effect.gen(function* () {
  const settings = yield* CurrentSettings
  // One listing of .agentic/ answers every top-level probe, and what is absent is not read (no notes folder,
  // no notes to count); a listing that failed (an unreadable .agentic/) leaves every probe to say what it finds.
  const top = yield* stateTop
  const state = yield* stateSummaryIn(top)
  const { registered, candidates } = yield* RegisteredTools
  // Transactions start-up recovery leaves alone (a planted journal, a live committer): always reported.
  const unsettled =
    top === undefined || top.has("transactions")
      ? yield* deferred(() => import("../edit/commit.ts").then((module) => module.unsettledTransactions))
      : []
  const storage = yield* probedStorage(storageMapOf(candidates), top)
  const sandbox = yield* sandboxReport
  return answerFor({ settings, state, sandbox, unsettled, tools: toolNames(registered) }, storage)
})
