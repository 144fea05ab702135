/** workspace_agent input: one Struct per action, wire names from the reference (snake_case), and the run records. */
import * as Schema from "effect/Schema"
import { BoundedString } from "../Tool.ts"

export const MAX_OBJECTIVE = 20_000
export const MAX_CONTEXT = 100_000
export const MODES = ["coding", "research", "general"] as const
export type RunMode = (typeof MODES)[number]

/** Budgets: default and cap (docs/AGENT.md). */
export const BUDGETS = {
  max_passes: { default: 3, cap: 20 },
  rounds_per_pass: { default: 8, cap: 50 },
  max_tool_calls: { default: 40, cap: 500 }
} as const

const budget = (name: keyof typeof BUDGETS, what: string) =>
  Schema.optional(
    Schema.Int.pipe(
      Schema.greaterThanOrEqualTo(1, { message: () => `must be at least 1` }),
      Schema.lessThanOrEqualTo(BUDGETS[name].cap, { message: () => `must be at most ${BUDGETS[name].cap} (its cap)` })
    ).annotations({ description: `${what} (default ${BUDGETS[name].default}, cap ${BUDGETS[name].cap}).` })
  )

export const RunId = Schema.String.pipe(
  Schema.pattern(/^run_[A-Za-z0-9]+$/, { message: () => "must be a run_* id" })
).annotations({
  description: "The run id (run_…) that run and start return."
})

export const StartInput = Schema.Struct({
  objective: Schema.String.pipe(
    Schema.maxLength(MAX_OBJECTIVE, { message: () => `must be at most ${MAX_OBJECTIVE} characters` }),
    Schema.filter((text) => text.trim() !== "" || "must not be empty")
  ).annotations({ description: "What the run must achieve (at most 20,000 characters)." }),
  context: Schema.optional(BoundedString(MAX_CONTEXT, "Background the run starts with (at most 100,000 characters).")),
  role: Schema.optional(BoundedString(200, "The run's role, e.g. reviewer.")),
  model_id: Schema.optional(BoundedString(200, "The model to use instead of the modelId setting.")),
  mode: Schema.optional(
    Schema.Literal(...MODES).annotations({ description: "coding (default), research or general." })
  ),
  commit_edits: Schema.optional(
    Schema.Boolean.annotations({
      description: "false: the run's edits stay planned (previews). true cannot raise the mode's default."
    })
  ),
  allow_commands: Schema.optional(
    Schema.Boolean.annotations({
      description: "false: no workspace_command in the run (research mode defaults to false)."
    })
  ),
  allow_web: Schema.optional(
    Schema.Boolean.annotations({ description: "false: no web_search / fetch_source in the run." })
  ),
  task_board_id: Schema.optional(
    BoundedString(200, "A workspace_tasks board the run works (next, update with evidence).")
  ),
  research_project_id: Schema.optional(
    BoundedString(200, "A workspace_research project the run records its sources and notes in.")
  ),
  max_passes: budget("max_passes", "Passes"),
  rounds_per_pass: budget("rounds_per_pass", "Model turns per pass"),
  max_tool_calls: budget("max_tool_calls", "Tool calls in the whole run"),
  idempotency_key: Schema.optional(
    BoundedString(200, "Re-issuing start with the same key and specification returns (or resumes) the same run.")
  )
})
export type StartInput = typeof StartInput.Type

export const ACTIONS = {
  run: StartInput,
  start: StartInput,
  status: Schema.Struct({ run_id: RunId }),
  history: Schema.Struct({
    run_id: RunId,
    offset: Schema.optional(
      Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)).annotations({
        description: "The first transcript entry to show (default 0)."
      })
    ),
    limit: Schema.optional(
      Schema.Int.pipe(Schema.between(1, 200)).annotations({
        description: "At most this many entries (1-200, default 50)."
      })
    )
  }),
  cancel: Schema.Struct({ run_id: RunId }),
  list: Schema.Struct({
    limit: Schema.optional(
      Schema.Int.pipe(Schema.between(1, 100)).annotations({
        description: "At most this many runs (1-100, default 20)."
      })
    )
  })
}

/** What a run may reach: the lowered permissions. */
export const Reach = Schema.Struct({ commitEdits: Schema.Boolean, commands: Schema.Boolean, web: Schema.Boolean })
export type Reach = typeof Reach.Type

/** The run's specification: what the idempotency key binds and what an approval binds (commitEdits included). */
export const RunSpec = Schema.TaggedStruct("AgentRun", {
  objective: Schema.String,
  context: Schema.String,
  role: Schema.String,
  modelId: Schema.String,
  mode: Schema.Literal(...MODES),
  commitEdits: Schema.Boolean,
  allowCommands: Schema.Boolean,
  allowWeb: Schema.Boolean,
  taskBoardId: Schema.NullOr(Schema.String),
  researchProjectId: Schema.NullOr(Schema.String),
  maxPasses: Schema.Int,
  roundsPerPass: Schema.Int,
  maxToolCalls: Schema.Int,
  idempotencyKey: Schema.NullOr(Schema.String)
})
export type RunSpec = typeof RunSpec.Type

export const RUN_STATUSES = ["pending_approval", "running", "completed", "failed", "cancelled", "interrupted"] as const
export type RunStatus = (typeof RUN_STATUSES)[number]
export const TERMINAL: ReadonlyArray<RunStatus> = ["completed", "failed", "cancelled"]

export const RunResult = Schema.Struct({
  summary: Schema.String,
  evidence: Schema.Array(Schema.String),
  remainingWork: Schema.Array(Schema.String),
  confidence: Schema.NullOr(Schema.Number)
})
export type RunResult = typeof RunResult.Type

/** `.agentic/runs/<run_id>/state.json`. */
export const RunState = Schema.Struct({
  version: Schema.Literal(1),
  runId: Schema.String,
  spec: RunSpec,
  specHash: Schema.String,
  status: Schema.Literal(...RUN_STATUSES),
  stopReason: Schema.optional(Schema.String),
  error: Schema.optional(Schema.Struct({ code: Schema.String, message: Schema.String })),
  /** The parent's permission mode when the run was started, and the plan that let it start in Plan mode. */
  entryMode: Schema.Literal(0, 1, 2),
  entryPlanId: Schema.NullOr(Schema.String),
  /** The effective settings of the call that started it (the worker opens the workspace with these, lowered). */
  settings: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  worker: Schema.NullOr(Schema.Struct({ pid: Schema.Number, identity: Schema.String, startedAt: Schema.String })),
  used: Schema.Struct({ passes: Schema.Int, rounds: Schema.Int, toolCalls: Schema.Int }),
  changed: Schema.Struct({
    paths: Schema.Array(Schema.String),
    transactions: Schema.Array(Schema.String),
    plannedTransactions: Schema.Array(Schema.String),
    jobs: Schema.Array(Schema.String),
    sources: Schema.Array(Schema.String)
  }),
  result: Schema.optional(RunResult),
  createdAt: Schema.String,
  updatedAt: Schema.String,
  endedAt: Schema.optional(Schema.String)
})
export type RunState = typeof RunState.Type
