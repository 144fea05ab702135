/**
 * workspace_plan: propose, current, show, complete, list. Registered when the permission mode is not
 * Auto; never gated. Plans are records in the approvals store, their text in .agentic/plans/<id>/.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { toolError } from "../../protocol/errors.ts"
import type { ToolResult } from "../../protocol/envelope.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { StateStore } from "../../store/StateStore.ts"
import { loadRecords, updateRecords } from "../../gate/gate.ts"
import { newId } from "../../gate/hash.ts"
import { type ApprovalRecord, approvedPlan, newestFirst, pendingPlan } from "../../gate/records.ts"
import { modeLabel } from "../../settings/settings.ts"
import { BoundedString, defineTool } from "../Tool.ts"

const TEXT = 2000
const Text = (description?: string) => BoundedString(TEXT, description)
const StepKind = Schema.Literal("edit", "command", "vcs", "research", "other")
const Step = Schema.Union(Text(), Schema.Struct({ text: Text(), kind: Schema.optional(StepKind) }))
const PlanId = Schema.String.pipe(Schema.pattern(/^plan_[A-Za-z0-9]+$/, { message: () => "must be a plan_* id" })).annotations({
  description: "The plan_… id (complete: default the approved plan)."
})

/** One step as stored. */
export interface PlanStep {
  readonly index: number
  readonly text: string
  readonly kind: "edit" | "command" | "vcs" | "research" | "other"
}

/** The stored plan (.agentic/plans/<id>/plan.json). */
export interface StoredPlan {
  readonly id: string
  readonly revision: number
  readonly title: string
  readonly objective: string
  readonly steps: ReadonlyArray<PlanStep>
  readonly files: ReadonlyArray<{ readonly path: string; readonly change: string }>
  readonly commands: ReadonlyArray<{ readonly executable: string; readonly args: ReadonlyArray<string> }>
  readonly risks: ReadonlyArray<string>
  readonly questions: ReadonlyArray<string>
  readonly createdAt: string
  readonly supersedes?: string
}

/** The Schema of plan.json, decoded on every read. */
export const StoredPlanSchema: Schema.Schema<StoredPlan> = Schema.Struct({
  id: Schema.String,
  revision: Schema.Number,
  title: Schema.String,
  objective: Schema.String,
  steps: Schema.Array(Schema.Struct({ index: Schema.Number, text: Schema.String, kind: Schema.Literal("edit", "command", "vcs", "research", "other") })),
  files: Schema.Array(Schema.Struct({ path: Schema.String, change: Schema.String })),
  commands: Schema.Array(Schema.Struct({ executable: Schema.String, args: Schema.Array(Schema.String) })),
  risks: Schema.Array(Schema.String),
  questions: Schema.Array(Schema.String),
  createdAt: Schema.String,
  supersedes: Schema.optional(Schema.String)
})

const planDir = (id: string) => `plans/${id}`

/** The plan as Markdown, as written to plan.md. */
export const planMarkdown = (plan: StoredPlan): string => {
  const out = [`# ${plan.title}`, "", `Plan ${plan.id}, revision ${plan.revision}, proposed ${plan.createdAt}.`]
  if (plan.supersedes !== undefined) out.push(`Supersedes ${plan.supersedes}.`)
  out.push("", "## Objective", "", plan.objective, "", "## Steps", "")
  for (const step of plan.steps) out.push(`${step.index}. [${step.kind}] ${step.text}`)
  const section = (title: string, lines: ReadonlyArray<string>) => {
    if (lines.length > 0) out.push("", `## ${title}`, "", ...lines)
  }
  section("Files", plan.files.map((file) => `- ${file.change} \`${file.path}\``))
  section("Commands", plan.commands.map((command) => `- \`${[command.executable, ...command.args].join(" ")}\``))
  section("Risks", plan.risks.map((risk) => `- ${risk}`))
  section("Questions", plan.questions.map((question) => `- ${question}`))
  return `${out.join("\n")}\n`
}

const planView = (record: ApprovalRecord, plan: StoredPlan | undefined) => ({
  id: record.id,
  status: record.status,
  revision: record.revision ?? plan?.revision ?? 1,
  title: record.title,
  createdAt: record.createdAt,
  ...(record.decidedAt === undefined ? {} : { decidedAt: record.decidedAt }),
  ...(record.note === undefined ? {} : { note: record.note }),
  ...(record.reason === undefined ? {} : { reason: record.reason }),
  ...(record.supersedes === undefined ? {} : { supersedes: record.supersedes }),
  ...(record.supersededBy === undefined ? {} : { supersededBy: record.supersededBy }),
  ...(record.completedAt === undefined ? {} : { completedAt: record.completedAt }),
  ...(record.completionSummary === undefined ? {} : { completionSummary: record.completionSummary }),
  ...(plan === undefined
    ? {}
    : {
        objective: plan.objective,
        steps: plan.steps,
        files: plan.files,
        commands: plan.commands,
        risks: plan.risks,
        questions: plan.questions
      })
})

/** Retention of every action that returns a plan: markdown and plan.steps are dropped when summarizing. */
const planRetention = (facts: ReadonlyArray<string>, importance: "normal" | "high" | "critical" = "normal") => ({
  importance,
  facts,
  omit_when_summarizing: ["markdown", "plan.steps"]
})

const readPlan = (id: string) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const plan = yield* store.readJson(`${planDir(id)}/plan.json`, StoredPlanSchema)
    const markdown = yield* store.readText(`${planDir(id)}/plan.md`)
    return { plan, markdown, planPath: store.path(`${planDir(id)}/plan.md`) }
  })

const showResult = (record: ApprovalRecord, verb: string): Effect.Effect<ToolResult, never, StateStore> =>
  Effect.gen(function* () {
    const { plan, markdown, planPath } = yield* Effect.orElseSucceed(readPlan(record.id), () => ({
      plan: undefined,
      markdown: undefined,
      planPath: `.agentic/plans/${record.id}/plan.md`
    }))
    return {
      summary: `${verb} plan ${record.id} (revision ${record.revision ?? 1}, ${record.status}): ${record.title}. Full text at ${planPath}.`,
      data: {
        planId: record.id,
        status: record.status,
        revision: record.revision ?? 1,
        plan: planView(record, plan),
        planPath,
        ...(markdown === undefined ? {} : { markdown })
      },
      retention: planRetention([`plan ${record.id} ${record.status}: ${record.title}`, `plan text at ${planPath}`])
    }
  })

/** The workspace_plan tool. */
export const planTool = defineTool({
  name: "workspace_plan",
  short: "plan",
  description:
    "Propose a plan for the user to approve before changing files (Plan mode), then track it. After propose, restate the plan and wait for the user's decision (the reply says how).",
  actions: {
    propose: Schema.Struct({
      title: Text("Short title."),
      objective: Text("What it achieves."),
      steps: Schema.Array(Step).pipe(Schema.minItems(1), Schema.maxItems(40)).annotations({
        description: "1-40 steps: strings, or {text, kind}."
      }),
      files: Schema.optional(
        Schema.Array(Schema.Struct({ path: Text(), change: Schema.Literal("create", "modify", "delete", "move") })).pipe(Schema.maxItems(100)).annotations({ description: "{path, change} it touches." })
      ),
      commands: Schema.optional(
        Schema.Array(
          Schema.Struct({
            executable: Text().pipe(Schema.pattern(/^[^/\\\s]+$/, { message: () => "must be a bare executable name (no path, no spaces)" })),
            args: Schema.optional(Schema.Array(Text()).pipe(Schema.maxItems(200)))
          })
        ).pipe(Schema.maxItems(40)).annotations({ description: "{executable, args} it runs." })
      ),
      risks: Schema.optional(Schema.Array(Text()).pipe(Schema.maxItems(40)).annotations({ description: "Risks." })),
      questions: Schema.optional(Schema.Array(Text()).pipe(Schema.maxItems(40)).annotations({ description: "Questions for the user." }))
    }),
    current: Schema.Struct({}),
    show: Schema.Struct({ plan_id: PlanId }),
    complete: Schema.Struct({ plan_id: Schema.optional(PlanId), summary: Schema.optional(Text("What was done.")) }),
    list: Schema.Struct({
      limit: Schema.optional(Schema.Int.pipe(Schema.between(1, 100)).annotations({ description: "Plans, newest first (1-100, default 20)." }))
    })
  },
  enabled: (settings) => settings.permissionMode !== 2,
  hints: { readOnlyHint: false, destructiveHint: false, openWorldHint: false, why: "writes plan records under `.agentic/`" },
  storage: [{ name: "plans", path: ".agentic/plans/<plan_id>/plan.md", probe: "plans", description: "plan text (workspace_plan)", rank: 40 }],
  probe: { args: { action: "current" }, ok: true },
  handlers: {
    propose: { gate: "none", run: (input) =>
      Effect.gen(function* () {
        const store = yield* StateStore
        const settings = yield* CurrentSettings
        const id = yield* newId("plan")
        const result = yield* updateRecords((records, now) =>
          Effect.gen(function* () {
            const previous = newestFirst(records).filter((record) => record.kind === "plan")
            const replaced = previous.filter((record) => record.status === "pending" || record.status === "approved")
            const revision = (previous[0]?.revision ?? 0) + 1
            const createdAt = new Date(now).toISOString()
            const supersedes = replaced[0]?.id
            const plan: StoredPlan = {
              id,
              revision,
              title: input.title,
              objective: input.objective,
              steps: input.steps.map((step, index) =>
                typeof step === "string" ? { index: index + 1, text: step, kind: "other" as const } : { index: index + 1, text: step.text, kind: step.kind ?? "other" }
              ),
              files: input.files ?? [],
              commands: (input.commands ?? []).map((command) => ({ executable: command.executable, args: command.args ?? [] })),
              risks: input.risks ?? [],
              questions: input.questions ?? [],
              createdAt,
              ...(supersedes === undefined ? {} : { supersedes })
            }
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
              ...(supersedes === undefined ? {} : { supersedes })
            }
            const next = records.map((existing) =>
              replaced.includes(existing) ? { ...existing, status: "superseded" as const, supersededBy: id, decidedAt: createdAt } : existing
            )
            return [{ record, plan, markdown, replaced }, [record, ...next]] as const
          })
        )
        const { record, plan, markdown, replaced } = result
        const manual = settings.permissionMode === 0
        const planPath = store.path(`${planDir(id)}/plan.md`)
        const instruction = `Restate this plan to the user in a few lines and stop: nothing mutating runs until the user replies /accept ${id} (or /deny ${id} <reason>).${
          manual ? " Permission mode is Manual (0): each mutating call still needs its own /accept; the plan is a shared checklist." : ""
        }`
        return {
          summary: `Proposed plan ${id} (revision ${plan.revision}${replaced.length > 0 ? `, supersedes ${replaced.map((r) => r.id).join(", ")}` : ""}): ${plan.title}. ${instruction}`,
          data: {
            planId: id,
            status: "pending",
            revision: plan.revision,
            ...(plan.supersedes === undefined ? {} : { supersedes: plan.supersedes }),
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
      }) },
    current: { gate: "none", run: () =>
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
      }) },
    show: { gate: "none", run: (input) =>
      Effect.gen(function* () {
        const records = yield* loadRecords
        const record = records.find((candidate) => candidate.id === input.plan_id && candidate.kind === "plan")
        if (record === undefined) {
          return yield* Effect.fail(toolError("NOT_FOUND", `No plan ${input.plan_id}. List plans with workspace_plan {"action":"list"}.`, { planId: input.plan_id }))
        }
        return yield* showResult(record, "Showing")
      }) },
    complete: { gate: "none", run: (input) =>
      Effect.gen(function* () {
        const settings = yield* CurrentSettings
        const record = yield* updateRecords((records, now) =>
          Effect.gen(function* () {
            const target =
              // Without plan_id: the approved plan, else the pending one (so complete on it fails TRANSACTION_STATE, not NOT_FOUND).
              input.plan_id === undefined ? approvedPlan(records) ?? pendingPlan(records) : records.find((candidate) => candidate.id === input.plan_id && candidate.kind === "plan")
            if (target === undefined) {
              return yield* Effect.fail(
                input.plan_id === undefined
                  ? toolError("NOT_FOUND", "No approved plan to complete. Check workspace_plan {\"action\":\"current\"}.")
                  : toolError("NOT_FOUND", `No plan ${input.plan_id}. List plans with workspace_plan {"action":"list"}.`, { planId: input.plan_id })
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
                toolError("TRANSACTION_STATE", `Plan ${target.id} is ${target.status}, not approved: only an approved plan can be completed.`, {
                  planId: target.id,
                  status: target.status
                })
              )
            }
            const completed: ApprovalRecord = {
              ...target,
              status: "completed",
              completedAt: new Date(now).toISOString(),
              ...(input.summary === undefined ? {} : { completionSummary: input.summary })
            }
            return [completed, records.map((candidate) => (candidate.id === target.id ? completed : candidate))] as const
          })
        )
        const result = yield* showResult(record, "Completed")
        const locked = settings.permissionMode === 1 ? " Mutating tools are locked again until a new plan is approved." : ""
        return { ...result, summary: `Completed plan ${record.id}: ${record.title}.${locked}` }
      }) },
    list: { gate: "none", run: (input) =>
      Effect.gen(function* () {
        const store = yield* StateStore
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
          retention: { importance: "normal", facts: shown.slice(0, 5).map((plan) => `plan ${plan.id} ${plan.status}: ${plan.title}`) }
        }
      }) }
  }
})
