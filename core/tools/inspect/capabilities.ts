/** workspace_inspect capabilities and changes, and the plan/approval/memory state overview shows. */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { CHANGE_KEYS, changeSourcesOf, storageMapOf } from "../../contributions.ts"
import { loadRecordState, loadRecords } from "../../gate/gate.ts"
import { Processes } from "../../services/Processes.ts"
import { decideSandbox } from "../../services/Sandbox.ts"
import { type ApprovalRecord, approvedPlan, pendingPlan, pendingRecords } from "../../gate/records.ts"
import type { Artifact, ToolResult } from "../../protocol/envelope.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { modeLabel, modeName } from "../../settings/settings.ts"
import { StateStore } from "../../store/StateStore.ts"
import { RegisteredTools } from "../../services/RegisteredTools.ts"
import { envelopeChars, placeholderArtifact, writeArtifact } from "./budget.ts"
import { largestFitting } from "./paging.ts"
import { unsettledTransactions } from "../edit/commit.ts"
import { plural } from "./common.ts"

/**
 * Plan, approval and memory state, for capabilities and overview. `top`, the names in `.agentic/` listed
 * by this same call, spares the probes of what is not there (no approvals folder: no records to read).
 */
const stateSummaryIn = (top?: ReadonlySet<string>) =>
  Effect.gen(function* () {
    const store = yield* StateStore
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

export const changes = Effect.gen(function* () {
  const store = yield* StateStore
  const records = yield* loadRecords
  const { candidates } = yield* RegisteredTools
  const sourced: Record<string, ReadonlyArray<unknown>> = Object.fromEntries(CHANGE_KEYS.map((key) => [key, []]))
  for (const source of changeSourcesOf(candidates))
    sourced[source.key] = [...(sourced[source.key] ?? []), ...(yield* source.list)]
  const approvals = records
    .filter((record) => record.kind !== "plan" && (record.status === "pending" || record.status === "approved"))
    .map((record) => ({
      id: record.id,
      kind: record.kind,
      status: record.status,
      title: record.title,
      createdAt: record.createdAt,
      ...(record.tool === undefined ? {} : { tool: record.tool }),
      ...(record.operation === undefined ? {} : { operation: record.operation }),
      destructive: record.destructive ?? false,
      ...(record.resume === undefined ? {} : { resume: record.resume })
    }))
  const plans = records
    .filter((record) => record.kind === "plan")
    .slice(0, 20)
    .map((record) => ({
      id: record.id,
      status: record.status,
      title: record.title,
      revision: record.revision ?? 1,
      createdAt: record.createdAt,
      planPath: record.planPath ?? store.path(`plans/${record.id}/plan.md`)
    }))
  const data = {
    transactions: sourced.transactions!,
    runs: sourced.runs!,
    jobs: sourced.jobs!,
    taskBoards: sourced.taskBoards!,
    researchProjects: sourced.researchProjects!,
    vcs: sourced.vcs!,
    approvals,
    plans
  }
  const jobs = data.jobs as ReadonlyArray<{ readonly id?: string; readonly status?: string }>
  const counts = Object.entries(data).map(([key, list]) => `${list.length} ${key}`)
  const retention: ToolResult["retention"] = {
    importance: "high",
    facts: [
      ...jobs.slice(0, 20).map((job) => `job ${job.id ?? "?"} ${job.status ?? ""}`.trim()),
      ...(data.vcs as ReadonlyArray<{ readonly summary?: string }>)
        .slice(0, 5)
        .map((entry) => `vcs: ${entry.summary ?? ""}`),
      ...approvals.slice(0, 10).map((approval) => `approval ${approval.id} ${approval.status}: ${approval.title}`),
      ...plans
        .filter((plan) => plan.status === "pending" || plan.status === "approved")
        .map((plan) => `plan ${plan.id} ${plan.status}: ${plan.planPath}`)
    ],
    // jobs is the one route back to a job_ id after compression: it is never omitted.
    omit_when_summarizing: ["transactions", "runs", "taskBoards", "researchProjects", "vcs"]
  }
  const summary = `Recovery listing: ${counts.join(", ")}.`
  const whole: ToolResult = { summary, data, retention }
  const settings = yield* CurrentSettings
  if (envelopeChars("inspect.changes", whole) <= settings.maxToolResultChars) return whole
  // Too large for one envelope: every list keeps its newest entries (the same count for all, jobs
  // first to keep), and the full listing goes to an artifact.
  const description = "The full changes listing, as JSON."
  const trimmed = (keep: number, artifact: Artifact): ToolResult => {
    const cut = Object.fromEntries(
      Object.entries(data).map(([key, list]) => [key, list.slice(0, key === "jobs" ? Math.max(keep, 20) : keep)])
    )
    const truncated = Object.fromEntries(
      Object.entries(data)
        .filter(([key]) => (cut[key]?.length ?? 0) < data[key as keyof typeof data].length)
        .map(([key, list]) => [key, list.length])
    )
    return {
      summary: `${summary} Only the newest ${keep} of each list are shown (totals in data.truncated) to fit maxToolResultChars; the full listing is in ${artifact.path}.`,
      data: { ...cut, truncated },
      retention,
      artifacts: [artifact]
    }
  }
  const longest = Math.max(...Object.values(data).map((list) => list.length))
  const placeholder = placeholderArtifact("inspect.changes", "changes", "json", description)
  const keep = Math.max(
    0,
    largestFitting(
      longest,
      (n) => envelopeChars("inspect.changes", trimmed(n, placeholder)) <= settings.maxToolResultChars
    )
  )
  const artifact = yield* writeArtifact("inspect.changes", "changes", "json", JSON.stringify(data), description)
  return trimmed(keep, artifact)
})

/** Whether commands run sandboxed here, how, and why not (capabilities). */
const sandboxReport = Effect.gen(function* () {
  const settings = yield* CurrentSettings
  // A host without processes provides a Processes layer that reports no sandbox.
  const support = yield* (yield* Processes).sandbox
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
    ...(reason === undefined ? {} : { reason }),
    ...(settings.commandSandbox === "required" && !support.available ? { commandsRefused: true } : {})
  }
})

export const capabilities = Effect.gen(function* () {
  const settings = yield* CurrentSettings
  const store = yield* StateStore
  // One listing of .agentic/ answers every top-level probe; a nested one (approvals/state.json) is stat'ed
  // only when its folder is there, and what is absent is not read (no notes folder, no notes to count).
  const listed = yield* Effect.option(store.list(""))
  const top = new Set(Option.getOrElse(listed, () => []).map((entry) => entry.name))
  // A listing that failed (an unreadable .agentic/) leaves every probe to say what it finds.
  const state = yield* stateSummaryIn(Option.isSome(listed) ? top : undefined)
  const { registered, candidates } = yield* RegisteredTools
  const tools = registered.map((tool) => tool.name)
  // Transactions start-up recovery leaves alone (a planted journal, a live committer): always reported.
  const unsettled = Option.isNone(listed) || top.has("transactions") ? yield* unsettledTransactions : []
  const storage = yield* Effect.forEach(storageMapOf(candidates), (entry) => {
    const first = entry.probe.split("/")[0]!
    const exists = !top.has(first)
      ? Effect.succeed(false)
      : first === entry.probe
        ? Effect.succeed(true)
        : Effect.map(store.stat(entry.probe), (stat) => stat !== undefined)
    return Effect.map(exists, (found) => ({
      name: entry.name,
      path: entry.path,
      description: entry.description,
      exists: found
    }))
  })
  const sandbox = yield* sandboxReport
  const summaryOf = (withTools: boolean) =>
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
  const result = (entries: unknown, withTools: boolean): ToolResult => ({
    summary: summaryOf(withTools),
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
  })
  // Smaller renderings of the storage map for small budgets: without descriptions, then name and path only.
  // Built one at a time, largest first, so a call whose budget fits the whole answer builds only that one.
  const variants = [
    () => result(storage, true),
    () =>
      result(
        storage.map(({ description: _, ...rest }) => rest),
        true
      ),
    () =>
      result(
        storage.map((entry) => ({ name: entry.name, path: entry.path })),
        true
      ),
    () => result(Object.fromEntries(storage.map((entry) => [entry.name, entry.path])), false)
  ]
  for (const variant of variants) {
    const built = variant()
    if (envelopeChars("inspect.capabilities", built) <= settings.maxToolResultChars) return built
  }
  // The smallest budget: the map's names only (each path is in docs/INSPECT.md and in larger results).
  return result(
    storage.map((entry) => entry.name),
    false
  )
})
