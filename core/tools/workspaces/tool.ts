/**
 * The Workspaces integration on git (docs/WORKSPACES.md): four capability-scoped tools with the
 * reference's wire names. get_workspace_status binds an opaque context_id; read_workspace pages views
 * bound to a read_snapshot; workspace_action stages every action for the user's confirmation and runs a
 * confirmed one once, with a receipt that outlives the model's context; get_workspace_operation reads
 * the receipt and reconciles an unknown one by observing the original effect, never by running it again.
 *
 * The layout: schema.ts (inputs and the plan), capabilities.ts (what each tool checks before decoding),
 * load.ts (status facts, each action's review and expectations), plan.ts (the pure planner),
 * interpret.ts (the staged receipt and the effect, run once), reconcile.ts (observing an unknown
 * effect), view.ts (what results show); read.ts and prs.ts serve read_workspace's views.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { toolError } from "../../protocol/errors.ts"
import { defineTool, gatedAction, type ToolDefinition } from "../Tool.ts"
import {
  actionPrecheck,
  advertiseWith,
  ghMissing,
  readPrecheck,
  requireCapabilities,
  requireView,
  usableViews
} from "./capabilities.ts"
import { actionDescription, OPERATION_DESCRIPTION, READ_DESCRIPTION, STATUS_DESCRIPTION } from "./description.ts"
import { actionNeeds, checkContext, githubOf, hostNow, requireGit } from "./git.ts"
import { interpretAction, recordAction } from "./interpret.ts"
import { loadAction, loadStatus } from "./load.ts"
import { COMMANDS_CAPABILITY } from "./names.ts"
import { planAction } from "./plan.ts"
import { type PrReadInput, readPrView } from "./prs.ts"
import { type ReadInput, readView } from "./read.ts"
import type { Receipt } from "./receipt.ts"
import { operationOf } from "./reconcile.ts"
import {
  type ActionInput,
  ActionFields,
  ActionPlan,
  BUILT_ACTIONS,
  type BuiltAction,
  ReadFields,
  RequestId,
  VIEWS
} from "./schema.ts"
import { operationResult, statusResult } from "./view.ts"

// get_workspace_status ------------------------------------------------------------------------------

/** The store paths the Workspaces tools keep records in (OwnStore). */
const WORKSPACES_WRITES = ["receipts", "workspaces/scratch"]

export const statusTool: ToolDefinition = defineTool({
  name: "get_workspace_status",
  short: "workspaces",
  description: STATUS_DESCRIPTION,
  actions: { status: Schema.Struct({}) },
  bare: "status",
  enabled: (settings) => settings.workspaceCapabilities.includes(COMMANDS_CAPABILITY),
  requires: ["process"],
  hints: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, why: "reads the git working copy" },
  // Its receipts, and the index copy its reads of the working tree use (core/exec/git.ts).
  alsoWrites: WORKSPACES_WRITES,
  probe: { args: {}, ok: "any" },
  precheck: () => requireCapabilities([COMMANDS_CAPABILITY], "get_workspace_status"),
  advertise: advertiseWith((): ToolDefinition => statusTool),
  handlers: { status: { gate: "none", run: () => Effect.map(loadStatus, statusResult) } }
})

// read_workspace ------------------------------------------------------------------------------------

/** read_workspace's decoded fields: a git view's, and the pull request views' own. */
type ReadArgs = ReadInput & {
  readonly pull_request_number?: number
  readonly path?: string
  readonly side?: "source" | "target"
}

/** read_workspace: the view's capabilities, then a pull request view through gh or a git view, bound to the context. */
const readRun = (input: ReadArgs) =>
  Effect.gen(function* () {
    yield* requireView(input.view)
    const git = yield* requireGit
    if (input.view === "pull_requests" || input.view === "pull_request" || input.view === "pull_request_diff") {
      const github = yield* githubOf(git)
      if (github === undefined) return yield* Effect.fail(ghMissing(input.view))
      yield* checkContext(git, input.context_id)
      if (input.branch !== undefined)
        return yield* Effect.fail(
          toolError("INVALID_INPUT", `branch belongs to the history view only; remove it for ${input.view}.`, {
            field: "branch"
          })
        )
      return yield* readPrView(github.gh, github.repo, input as PrReadInput)
    }
    for (const field of ["pull_request_number", "path", "side"] as const) {
      if (input[field] !== undefined)
        return yield* Effect.fail(
          toolError("INVALID_INPUT", `${field} belongs to the pull request views; remove it for ${input.view}.`, {
            field
          })
        )
    }
    yield* checkContext(git, input.context_id)
    return yield* readView(git, input)
  })

/** read_workspace with the given views in its schema (the usable ones). */
const makeReadTool = (views: ReadonlyArray<(typeof VIEWS)[number]>): ToolDefinition => {
  const fields = {
    ...ReadFields.fields,
    view: Schema.Literal(...views).annotations({ description: `One of ${views.join(", ")} (the views usable here).` })
  }
  const tool: ToolDefinition = defineTool({
    name: "read_workspace",
    short: "workspaces",
    description: READ_DESCRIPTION,
    actions: { read: Schema.Struct(fields) },
    bare: "read",
    enabled: (settings) => settings.workspaceCapabilities.includes(COMMANDS_CAPABILITY),
    requires: ["process"],
    hints: {
      readOnlyHint: true,
      destructiveHint: false,
      openWorldHint: true,
      why: "reads git views of the working copy and, with gh, the repository's pull requests"
    },
    // Its receipts, and the index copy its reads of the working tree use (core/exec/git.ts).
    alsoWrites: WORKSPACES_WRITES,
    probe: { args: { context_id: "00000000-0000-8000-8000-000000000000", view: "changes" }, ok: false },
    precheck: readPrecheck,
    advertise: Effect.map(
      Effect.orElseSucceed(hostNow, () => ({
        usable: [] as ReadonlyArray<string>,
        support: { git: false, remote: false, gh: false }
      })),
      ({ usable, support }) =>
        usable.includes(COMMANDS_CAPABILITY) ? makeReadTool(usableViews(usable, support.gh)) : undefined
    ),
    handlers: { read: { gate: "none", run: (input) => readRun(input as never) } }
  })
  return tool
}

export const readTool: ToolDefinition = makeReadTool(VIEWS)

// get_workspace_operation ---------------------------------------------------------------------------

export const operationTool: ToolDefinition = defineTool({
  name: "get_workspace_operation",
  short: "workspaces",
  description: OPERATION_DESCRIPTION,
  actions: { operation: Schema.Struct({ request_id: RequestId }) },
  bare: "operation",
  enabled: (settings) => settings.workspaceCapabilities.includes(COMMANDS_CAPABILITY),
  requires: ["process"],
  hints: {
    readOnlyHint: true,
    destructiveHint: false,
    openWorldHint: false,
    why: "reads a receipt and observes the repository"
  },
  // Its receipts, and the index copy its reads of the working tree use (core/exec/git.ts).
  alsoWrites: WORKSPACES_WRITES,
  probe: { args: { request_id: "00000000-0000-8000-8000-000000000000" }, ok: false },
  precheck: () => requireCapabilities([COMMANDS_CAPABILITY], "get_workspace_operation"),
  advertise: advertiseWith((): ToolDefinition => operationTool),
  handlers: {
    operation: {
      gate: "none",
      run: (input) =>
        Effect.map(operationOf((input as { request_id: string }).request_id, true), ({ receipt, observed }) =>
          operationResult(receipt, observed)
        )
    }
  }
})

// workspace_action ----------------------------------------------------------------------------------

const actionDef = gatedAction({
  gate: "vcs",
  confirm: "always",
  planSchema: ActionPlan,
  load: (input: ActionInput) => loadAction(input),
  plan: planAction,
  record: recordAction,
  interpret: interpretAction,
  view: (receipt: Receipt) => Effect.succeed(operationResult(receipt))
})

/** workspace_action with the given actions (the advertised ones). */
export const makeActionTool = (actions: ReadonlyArray<BuiltAction>): ToolDefinition => {
  const schemas = Object.fromEntries(actions.map((action) => [action, ActionFields[action]])) as Record<
    string,
    Schema.Schema.AnyNoContext
  >
  const handlers = Object.fromEntries(actions.map((action) => [action, actionDef]))
  const tool: ToolDefinition = defineTool({
    name: "workspace_action",
    short: "workspaces",
    description: actionDescription(actions),
    actions: schemas,
    enabled: (settings) => settings.workspaceCapabilities.includes(COMMANDS_CAPABILITY),
    requires: ["process"],
    hints: {
      readOnlyHint: false,
      destructiveHint: true,
      openWorldHint: true,
      why: "commits, switches and deletes branches, moves files, pushes and pulls, each after the user's confirmation"
    },
    // Its receipts, and the index copy its reads of the working tree use (core/exec/git.ts).
    alsoWrites: WORKSPACES_WRITES,
    probe: {
      args: {
        action: "commit",
        context_id: "00000000-0000-8000-8000-000000000000",
        request_id: "00000000-0000-8000-8000-000000000000",
        message: "probe"
      },
      ok: false
    },
    precheck: actionPrecheck,
    advertise: advertiseWith((usable) => {
      const usableActions = BUILT_ACTIONS.filter((action) =>
        actionNeeds(action).every((capability) => usable.includes(capability))
      )
      return usableActions.length === 0 ? undefined : makeActionTool(usableActions)
    }),
    handlers: handlers as never
  } as ToolDefinition)
  return tool
}

export const actionTool = makeActionTool(BUILT_ACTIONS)

/** The four tools, for ALL_TOOLS. */
export const WORKSPACES_TOOLS = [statusTool, readTool, operationTool, actionTool] as const
