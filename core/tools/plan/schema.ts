/** workspace_plan input and records: the Schemas of its actions and of plan.json. */
import * as Schema from "effect/Schema"
import { BoundedString } from "../Tool.ts"

export const TEXT = 2000
export const Text = (description?: string) => BoundedString(TEXT, description)
export const StepKind = Schema.Literal("edit", "command", "vcs", "research", "other")
export const Step = Schema.Union(Text(), Schema.Struct({ text: Text(), kind: Schema.optional(StepKind) }))
export const PlanId = Schema.String.pipe(
  Schema.pattern(/^plan_[A-Za-z0-9]+$/, { message: () => "must be a plan_* id" })
).annotations({
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
  steps: Schema.Array(
    Schema.Struct({
      index: Schema.Number,
      text: Schema.String,
      kind: Schema.Literal("edit", "command", "vcs", "research", "other")
    })
  ),
  files: Schema.Array(Schema.Struct({ path: Schema.String, change: Schema.String })),
  commands: Schema.Array(Schema.Struct({ executable: Schema.String, args: Schema.Array(Schema.String) })),
  risks: Schema.Array(Schema.String),
  questions: Schema.Array(Schema.String),
  createdAt: Schema.String,
  supersedes: Schema.optional(Schema.String)
})

/** The actions of workspace_plan and their inputs. */
export const planActions = {
  propose: Schema.Struct({
    title: Text("Short title."),
    objective: Text("What it achieves."),
    steps: Schema.Array(Step).pipe(Schema.minItems(1), Schema.maxItems(40)).annotations({
      description: "1-40 steps: strings, or {text, kind}."
    }),
    files: Schema.optional(
      Schema.Array(Schema.Struct({ path: Text(), change: Schema.Literal("create", "modify", "delete", "move") }))
        .pipe(Schema.maxItems(100))
        .annotations({ description: "{path, change} it touches." })
    ),
    commands: Schema.optional(
      Schema.Array(
        Schema.Struct({
          executable: Text().pipe(
            Schema.pattern(/^[^/\\\s]+$/, { message: () => "must be a bare executable name (no path, no spaces)" })
          ),
          args: Schema.optional(Schema.Array(Text()).pipe(Schema.maxItems(200)))
        })
      )
        .pipe(Schema.maxItems(40))
        .annotations({ description: "{executable, args} it runs." })
    ),
    risks: Schema.optional(Schema.Array(Text()).pipe(Schema.maxItems(40)).annotations({ description: "Risks." })),
    questions: Schema.optional(
      Schema.Array(Text()).pipe(Schema.maxItems(40)).annotations({ description: "Questions for the user." })
    )
  }),
  current: Schema.Struct({}),
  show: Schema.Struct({ plan_id: PlanId }),
  complete: Schema.Struct({ plan_id: Schema.optional(PlanId), summary: Schema.optional(Text("What was done.")) }),
  list: Schema.Struct({
    limit: Schema.optional(
      Schema.Int.pipe(Schema.between(1, 100)).annotations({ description: "Plans, newest first (1-100, default 20)." })
    )
  })
}

/** The decoded input of one action. */
export type PlanInput<K extends keyof typeof planActions> = Schema.Schema.Type<(typeof planActions)[K]>
