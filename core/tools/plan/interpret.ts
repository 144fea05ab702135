/** The actions of workspace_plan (never gated), one function each. */
import * as Effect from "effect/Effect"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import type { ToolResult } from "../../protocol/envelope.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { OwnStore, StateReads } from "../../store/StateStore.ts"
import { loadRecords } from "../../gate/gate.ts"
import { PlanRecords } from "../../gate/planRecords.ts"
import { newId } from "../../gate/hash.ts"
import type { WorkspaceKey } from "../../gate/key.ts"
import { type ApprovalRecord, approvedPlan, newestFirst, pendingPlan } from "../../gate/records.ts"
import { modeLabel } from "../../settings/settings.ts"
import { defined } from "../../text/defined.ts"
import type { PlanInput, StoredPlan } from "./schema.ts"
import { planDir } from "./load.ts"
import { planMarkdown, planRetention, planView, showResult } from "./view.ts"

/** The plan as plan.json stores it: the input's steps numbered (a bare string is a step of kind "other"). */
const storedPlan = (
  input: PlanInput<"propose">,
  id: string,
  revision: number,
  createdAt: string,
  supersedes: string | undefined
): StoredPlan => ({
  id,
  revision,
  title: input.title,
  objective: input.objective,
  steps: input.steps.map((step, index) =>
    typeof step === "string"
      ? { index: index + 1, text: step, kind: "other" as const }
      : { index: index + 1, text: step.text, kind: step.kind ?? "other" }
  ),
  files: input.files ?? [],
  commands: (input.commands ?? []).map((command) => ({
    executable: command.executable,
    args: command.args ?? []
  })),
  risks: input.risks ?? [],
  questions: input.questions ?? [],
  createdAt,
  ...defined({ supersedes })
})

/**
 * Writes a new plan revision inside the approval store's lock: plan.json and plan.md first, then its pending
 * record, which supersedes the pending or approved plan before it.
 */
const recordProposal = (input: PlanInput<"propose">, id: string) =>
  Effect.flatMap(Effect.zip(OwnStore, PlanRecords), ([store, plans]) =>
    plans.update((records, now) =>
      Effect.gen(function* () {
        const previous = newestFirst(records).filter((record) => record.kind === "plan")
        const replaced = previous.filter((record) => record.status === "pending" || record.status === "approved")
        const revision = (previous[0]?.revision ?? 0) + 1
        const createdAt = new Date(now).toISOString()
        const supersedes = replaced[0]?.id
        const plan = storedPlan(input, id, revision, createdAt, supersedes)
        const markdown = planMarkdown(plan)
        // The text is written inside the store lock, before the record exists.
        yield* store.writeJson(`${planDir(id)}/plan.json`, plan)
        yield* store.writeText(`${planDir(id)}/plan.md`, markdown)
        const record: ApprovalRecord = {
          id,
          kind: "plan",
          status: "pending",
          title: input.title,
          createdAt,
          revision,
          planPath: store.path(`${planDir(id)}/plan.md`),
          ...defined({ supersedes })
        }
        const next = records.map((existing) =>
          replaced.includes(existing)
            ? { ...existing, status: "superseded" as const, supersededBy: id, decidedAt: createdAt }
            : existing
        )
        return [{ record, plan, markdown, replaced }, [record, ...next]] as const
      })
    )
  )

/** propose: a new pending plan revision, and the instruction to restate it and wait for the user's /accept. */
export const proposePlan = (
  input: PlanInput<"propose">
): Effect.Effect<ToolResult, ToolError, OwnStore | StateReads | PlanRecords | CurrentSettings | WorkspaceKey> =>
  Effect.gen(function* () {
    const store = yield* StateReads
    const settings = yield* CurrentSettings
    const id = yield* newId("plan")
    const { record, plan, markdown, replaced } = yield* recordProposal(input, id)
    const manual = settings.permissionMode === 0
    const planPath = store.path(`${planDir(id)}/plan.md`)
    const instruction = `Restate this plan to the user in a few lines and stop: nothing mutating runs until the user replies /accept ${id} (or /deny ${id} <reason>).${
      manual
        ? " Permission mode is Manual (0): each mutating call still needs its own /accept; the plan is a shared checklist."
        : ""
    }`
    return {
      summary: `Proposed plan ${id} (revision ${plan.revision}${replaced.length > 0 ? `, supersedes ${replaced.map((r) => r.id).join(", ")}` : ""}): ${plan.title}. ${instruction}`,
      data: {
        planId: id,
        status: "pending",
        revision: plan.revision,
        ...defined({ supersedes: plan.supersedes }),
        plan: planView(record, plan),
        planPath,
        markdown,
        instruction
      },
      retention: planRetention(
        [
          `plan ${id} pending (revision ${plan.revision}): ${plan.title}`,
          `permission mode ${modeLabel(settings.permissionMode)}`,
          ...plan.steps.slice(0, 10).map((step) => `step ${step.index}: ${step.text}`)
        ],
        "critical"
      )
    }
  })

export const currentPlan = (): Effect.Effect<
  ToolResult,
  ToolError,
  OwnStore | StateReads | PlanRecords | CurrentSettings | WorkspaceKey
> =>
  Effect.gen(function* () {
    const records = yield* loadRecords
    const record = pendingPlan(records) ?? approvedPlan(records)
    if (record === undefined) {
      return {
        summary: "No plan is pending or approved.",
        data: { status: "none" },
        retention: { importance: "normal", facts: ["no current plan"] }
      } satisfies ToolResult
    }
    return yield* showResult(record, "Current")
  })

export const showPlan = (
  input: PlanInput<"show">
): Effect.Effect<ToolResult, ToolError, OwnStore | StateReads | PlanRecords | CurrentSettings | WorkspaceKey> =>
  Effect.gen(function* () {
    const records = yield* loadRecords
    const record = records.find((candidate) => candidate.id === input.plan_id && candidate.kind === "plan")
    if (record === undefined) {
      return yield* Effect.fail(
        toolError("NOT_FOUND", `No plan ${input.plan_id}. List plans with workspace_plan {"action":"list"}.`, {
          planId: input.plan_id
        })
      )
    }
    return yield* showResult(record, "Showing")
  })

export const completePlan = (
  input: PlanInput<"complete">
): Effect.Effect<ToolResult, ToolError, OwnStore | StateReads | PlanRecords | CurrentSettings | WorkspaceKey> =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const plans = yield* PlanRecords
    const record = yield* plans.update((records, now) =>
      Effect.gen(function* () {
        const target =
          // Without plan_id: the approved plan, else the pending one (so complete on it fails TRANSACTION_STATE, not NOT_FOUND).
          input.plan_id === undefined
            ? (approvedPlan(records) ?? pendingPlan(records))
            : records.find((candidate) => candidate.id === input.plan_id && candidate.kind === "plan")
        if (target === undefined) {
          return yield* Effect.fail(
            input.plan_id === undefined
              ? toolError("NOT_FOUND", 'No approved plan to complete. Check workspace_plan {"action":"current"}.')
              : toolError("NOT_FOUND", `No plan ${input.plan_id}. List plans with workspace_plan {"action":"list"}.`, {
                  planId: input.plan_id
                })
          )
        }
        if (target.status === "pending") {
          return yield* Effect.fail(
            toolError(
              "TRANSACTION_STATE",
              `Plan ${target.id} has not been accepted by the user yet. Stop and wait: nothing runs until the user replies /accept ${target.id} or /deny ${target.id}, and calling complete or show again cannot change that.`,
              { planId: target.id, status: target.status }
            )
          )
        }
        if (target.status !== "approved") {
          return yield* Effect.fail(
            toolError(
              "TRANSACTION_STATE",
              `Plan ${target.id} is ${target.status}, not approved: only an approved plan can be completed.`,
              {
                planId: target.id,
                status: target.status
              }
            )
          )
        }
        const completed: ApprovalRecord = {
          ...target,
          status: "completed",
          completedAt: new Date(now).toISOString(),
          ...defined({ completionSummary: input.summary })
        }
        return [completed, records.map((candidate) => (candidate.id === target.id ? completed : candidate))] as const
      })
    )
    const result = yield* showResult(record, "Completed")
    const locked = settings.permissionMode === 1 ? " Mutating tools are locked again until a new plan is approved." : ""
    return { ...result, summary: `Completed plan ${record.id}: ${record.title}.${locked}` }
  })

export const listPlans = (
  input: PlanInput<"list">
): Effect.Effect<ToolResult, ToolError, OwnStore | StateReads | PlanRecords | CurrentSettings | WorkspaceKey> =>
  Effect.gen(function* () {
    const store = yield* StateReads
    const plans = (yield* loadRecords).filter((record) => record.kind === "plan")
    const limit = input.limit ?? 20
    const shown = plans.slice(0, limit).map((record) => ({
      id: record.id,
      status: record.status,
      revision: record.revision ?? 1,
      title: record.title,
      createdAt: record.createdAt,
      planPath: record.planPath ?? store.path(`${planDir(record.id)}/plan.md`)
    }))
    return {
      summary: `${plans.length} plan(s)${plans.length > shown.length ? ` (showing ${shown.length})` : ""}, newest first.`,
      data: { plans: shown, total: plans.length },
      retention: {
        importance: "normal",
        facts: shown.slice(0, 5).map((plan) => `plan ${plan.id} ${plan.status}: ${plan.title}`)
      }
    }
  })
