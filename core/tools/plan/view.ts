/** What workspace_plan shows: the Markdown of a plan, its view in data, and the result of show. */
import * as Effect from "effect/Effect"
import type { ToolResult } from "../../protocol/envelope.ts"
import type { StateReads } from "../../store/StateStore.ts"
import type { ApprovalRecord } from "../../gate/records.ts"
import type { StoredPlan } from "./schema.ts"
import { readPlan } from "./load.ts"
import { defined } from "../../text/defined.ts"

/** The plan as Markdown, as written to plan.md. */
export const planMarkdown = (plan: StoredPlan): string => {
  const out = [`# ${plan.title}`, "", `Plan ${plan.id}, revision ${plan.revision}, proposed ${plan.createdAt}.`]
  if (plan.supersedes !== undefined) out.push(`Supersedes ${plan.supersedes}.`)
  out.push("", "## Objective", "", plan.objective, "", "## Steps", "")
  for (const step of plan.steps) out.push(`${step.index}. [${step.kind}] ${step.text}`)
  const section = (title: string, lines: ReadonlyArray<string>) => {
    if (lines.length > 0) out.push("", `## ${title}`, "", ...lines)
  }
  section(
    "Files",
    plan.files.map((file) => `- ${file.change} \`${file.path}\``)
  )
  section(
    "Commands",
    plan.commands.map((command) => `- \`${[command.executable, ...command.args].join(" ")}\``)
  )
  section(
    "Risks",
    plan.risks.map((risk) => `- ${risk}`)
  )
  section(
    "Questions",
    plan.questions.map((question) => `- ${question}`)
  )
  return `${out.join("\n")}\n`
}

export const planView = (record: ApprovalRecord, plan: StoredPlan | undefined) => ({
  id: record.id,
  status: record.status,
  revision: record.revision ?? plan?.revision ?? 1,
  title: record.title,
  createdAt: record.createdAt,
  ...defined({
    decidedAt: record.decidedAt,
    note: record.note,
    reason: record.reason,
    supersedes: record.supersedes,
    supersededBy: record.supersededBy,
    completedAt: record.completedAt,
    completionSummary: record.completionSummary
  }),
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
export const planRetention = (facts: ReadonlyArray<string>, importance: "normal" | "high" | "critical" = "normal") => ({
  importance,
  facts,
  omit_when_summarizing: ["markdown", "plan.steps"]
})

export const showResult = (record: ApprovalRecord, verb: string): Effect.Effect<ToolResult, never, StateReads> =>
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
        ...defined({ markdown })
      },
      retention: planRetention([`plan ${record.id} ${record.status}: ${record.title}`, `plan text at ${planPath}`])
    }
  })
