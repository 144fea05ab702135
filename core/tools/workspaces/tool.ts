/**
 * The Workspaces integration on git (docs/WORKSPACES.md): four capability-scoped tools with the
 * reference's wire names. get_workspace_status binds an opaque context_id; read_workspace pages views
 * bound to a read_snapshot; workspace_action stages every action for the user's confirmation and runs a
 * confirmed one once, with a receipt that outlives the model's context; get_workspace_operation reads
 * the receipt and reconciles an unknown one by observing the original effect, never by running it again.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { hashOperation } from "../../gate/hash.ts"
import type { ToolResult } from "../../protocol/envelope.ts"
import { toolError } from "../../protocol/errors.ts"
import { HostInfo } from "../../services/HostFs.ts"
import { defineTool, gatedAction, type Planned, type ToolContext, type ToolDefinition } from "../Tool.ts"
import type { Git } from "../../exec/git.ts"
import {
  type ActionInput,
  ActionFields,
  BUILT_ACTIONS,
  type BuiltAction,
  ContextId,
  DESTRUCTIVE,
  expectOf,
  inputsOf,
  isBuilt,
  observe,
  RequestId,
  type Review,
  reviewOf,
  runEffect
} from "./action.ts"
import { actionDescription, OPERATION_DESCRIPTION, READ_DESCRIPTION, STATUS_DESCRIPTION } from "./description.ts"
import {
  actionNeeds,
  type Binding,
  checkContext,
  contextIdOf,
  githubOf,
  hostNow,
  readBinding,
  readLine,
  requireGit,
  usableNow
} from "./git.ts"
import { type PrReadInput, readPrView } from "./prs.ts"
import {
  COMMANDS_CAPABILITY,
  PR_READS_CAPABILITY,
  REMOTE_READS_CAPABILITY,
  WORKSPACE_ACTIONS,
  type WorkspaceActionName
} from "./names.ts"
import { loadChanges, type ReadInput, readView } from "./read.ts"
import {
  advance,
  type Receipt,
  readReceipt,
  receiptData,
  SETTLED,
  scrubDeep,
  withReceiptLock,
  writeReceipt
} from "./receipt.ts"
import { nowIso } from "../../text/time.ts"

const missing = (capability: string, what: string) =>
  toolError(
    "CAPABILITY_MISSING",
    `${what} needs the capability ${capability}, which is not usable here (the workspaceCapabilities setting or this host does not offer it), so nothing was attempted.`,
    {
      capability
    }
  )

/** Fails CAPABILITY_MISSING naming the first of `needed` that is not usable now. */
const requireCapabilities = (needed: ReadonlyArray<string>, what: string) =>
  Effect.flatMap(usableNow, (usable) => {
    const absent = needed.find((capability) => !usable.includes(capability))
    return absent === undefined ? Effect.void : Effect.fail(missing(absent, what))
  })

/** The usable capabilities as the host advertises a tool: undefined (not listed) without workspace:commands:v1. */
const advertiseWith = (narrow: (usable: ReadonlyArray<string>) => ToolDefinition | undefined) =>
  Effect.map(
    Effect.orElseSucceed(usableNow, () => [] as ReadonlyArray<string>),
    (usable) => (usable.includes(COMMANDS_CAPABILITY) ? narrow(usable) : undefined)
  )

// get_workspace_status ------------------------------------------------------------------------------

const statusOf = Effect.gen(function* () {
  const git = yield* requireGit
  const info = yield* HostInfo
  const binding = yield* readBinding(git)
  const contextId = yield* contextIdOf(binding)
  const upstream =
    binding.branch === null ? "" : yield* readLine(git, ["rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}"])
  const counts = upstream === "" ? "" : yield* readLine(git, ["rev-list", "--left-right", "--count", "HEAD...@{u}"])
  const [ahead, behind] = counts === "" ? [null, null] : counts.split(/\s+/).map(Number)
  const changes = yield* loadChanges(git)
  const byKind: Record<string, number> = {}
  for (const entry of changes.entries) byKind[entry.kind] = (byKind[entry.kind] ?? 0) + 1
  const usable = yield* usableNow
  const project = info.root.replace(/\/+$/, "").split("/").pop() ?? ""
  return {
    summary: `${project} on ${binding.branch ?? "detached HEAD"} at ${binding.head?.slice(0, 12) ?? "no commit"}: ${changes.entries.length} change(s)${changes.complete ? "" : " (enumeration incomplete)"}. context_id ${contextId}.`,
    data: {
      context_id: contextId,
      project,
      branch: binding.branch,
      head: binding.head,
      upstream: upstream === "" ? null : upstream,
      ahead: ahead ?? null,
      behind: behind ?? null,
      changes: { total: changes.entries.length, complete: changes.complete, ...byKind },
      capabilities: usable
    },
    retention: { importance: "normal", facts: [`context_id ${contextId} (refresh after saves or identity changes)`] }
  } satisfies ToolResult
})

export const statusTool: ToolDefinition = defineTool({
  name: "get_workspace_status",
  short: "workspaces",
  description: STATUS_DESCRIPTION,
  actions: { status: Schema.Struct({}) },
  bare: "status",
  enabled: (settings) => settings.workspaceCapabilities.includes(COMMANDS_CAPABILITY),
  requires: ["process"],
  hints: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, why: "reads the git working copy" },
  probe: { args: {}, ok: "any" },
  precheck: () => requireCapabilities([COMMANDS_CAPABILITY], "get_workspace_status"),
  advertise: advertiseWith((): ToolDefinition => statusTool),
  handlers: { status: { gate: "none", run: () => statusOf } }
})

// read_workspace ------------------------------------------------------------------------------------

const VIEWS = [
  "changes",
  "stashes",
  "branches",
  "history",
  "pull_requests",
  "pull_request",
  "pull_request_diff"
] as const
const VIEW_NEEDS: Record<string, string | undefined> = {
  changes: undefined,
  stashes: undefined,
  branches: REMOTE_READS_CAPABILITY,
  history: REMOTE_READS_CAPABILITY,
  pull_requests: REMOTE_READS_CAPABILITY,
  pull_request: PR_READS_CAPABILITY,
  pull_request_diff: PR_READS_CAPABILITY
}

const Int = (min: number, max: number, description: string) =>
  Schema.Int.pipe(Schema.greaterThanOrEqualTo(min), Schema.lessThanOrEqualTo(max)).annotations({ description })

export const ReadFields = Schema.Struct({
  context_id: ContextId,
  view: Schema.Literal(...VIEWS).annotations({
    description:
      "changes, stashes; with remote reads branches, history, pull_requests; with PR reads pull_request, pull_request_diff."
  }),
  offset: Schema.optional(Int(0, 100_000, "Integer 0-100000 (default 0); pass next_offset.")),
  limit: Schema.optional(Int(1, 64, "Integer 1-64 (default 32).")),
  read_snapshot: Schema.optional(
    Schema.String.pipe(
      Schema.pattern(/^[0-9a-f]{64}$/, {
        message: () => "must be the 64-character lowercase hex read_snapshot returned"
      })
    ).annotations({
      description: "The read_snapshot of offset 0, exactly; required at a nonzero offset."
    })
  ),
  branch: Schema.optional(
    Schema.String.pipe(Schema.minLength(1), Schema.maxLength(255)).annotations({
      description: "history: the branch (default the current one)."
    })
  ),
  pull_request_number: Schema.optional(
    Int(
      1,
      2_147_483_647,
      "The pull request number, integer 1-2147483647 (required for pull_request and pull_request_diff)."
    )
  ),
  path: Schema.optional(
    Schema.String.pipe(Schema.minLength(1), Schema.maxLength(4096)).annotations({
      description: "pull_request_diff: a path from its file_list."
    })
  ),
  side: Schema.optional(
    Schema.Literal("source", "target").annotations({ description: "pull_request_diff with path: source or target." })
  )
})

/** The views usable now: base views, remote views with remote reads (pull_requests also needs gh), PR views with PR reads. */
const usableViews = (usable: ReadonlyArray<string>, gh: boolean): ReadonlyArray<(typeof VIEWS)[number]> =>
  VIEWS.filter((view) => {
    const needs = VIEW_NEEDS[view]
    if (needs !== undefined && !usable.includes(needs)) return false
    return view !== "pull_requests" || gh
  })

const ghMissing = (view: string) =>
  toolError(
    "CAPABILITY_MISSING",
    `The ${view} view is served by GitHub through gh, and this host has no remote naming a GitHub repository with gh authenticated for its host (gh auth login), so nothing was attempted.`,
    { capability: view === "pull_requests" ? REMOTE_READS_CAPABILITY : PR_READS_CAPABILITY, needs: "gh" }
  )

type ReadArgs = ReadInput & {
  readonly pull_request_number?: number
  readonly path?: string
  readonly side?: "source" | "target"
}

const readRun = (input: ReadArgs) =>
  Effect.gen(function* () {
    const needs = VIEW_NEEDS[input.view]
    yield* requireCapabilities(
      needs === undefined ? [COMMANDS_CAPABILITY] : [COMMANDS_CAPABILITY, needs],
      `The ${input.view} view`
    )
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
    probe: { args: { context_id: "00000000-0000-8000-8000-000000000000", view: "changes" }, ok: false },
    precheck: (args) => {
      const view = (args as { view?: unknown } | null)?.view
      const needs = typeof view === "string" ? VIEW_NEEDS[view] : undefined
      const checked = requireCapabilities(
        needs === undefined ? [COMMANDS_CAPABILITY] : [COMMANDS_CAPABILITY, needs],
        typeof view === "string" ? `The ${view} view` : "read_workspace"
      )
      // pull_requests is the one remote view GitHub serves: without gh it is refused before the decode too.
      return view !== "pull_requests"
        ? checked
        : Effect.zipRight(
            checked,
            Effect.flatMap(hostNow, ({ support }) =>
              support.gh ? Effect.void : Effect.fail(ghMissing("pull_requests"))
            )
          )
    },
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

const noReceipt = (requestId: string) =>
  toolError(
    "NOT_FOUND",
    `There is no receipt for request ${requestId}. A missing receipt does not prove the effect was absent; do not create a replacement request on that basis, ask the user to check.`,
    { request_id: requestId }
  )

/**
 * Reads a receipt and, when it is `unknown` and `reconcile` is set, observes the original effect under the
 * receipt's lock: a proven effect settles it, anything else leaves it unknown with what was observed.
 */
export const operationOf = (requestId: string, reconcile: boolean) =>
  Effect.gen(function* () {
    const found = yield* readReceipt(requestId)
    if (found === undefined) return yield* Effect.fail(noReceipt(requestId))
    if (!reconcile || found.state !== "unknown")
      return { receipt: found, observed: undefined as Record<string, unknown> | undefined }
    const git = yield* requireGit
    return yield* withReceiptLock(
      requestId,
      Effect.gen(function* () {
        const receipt = (yield* readReceipt(requestId)) ?? found
        if (receipt.state !== "unknown") return { receipt, observed: undefined }
        const seen = yield* observe(git, receipt)
        if (seen.settled === undefined) return { receipt, observed: seen.observed }
        const at = yield* nowIso
        const next = yield* advance(receipt, seen.settled.state, at, {
          phases: seen.settled.phases,
          outcome: seen.settled.outcome,
          note: "reconciled by observation"
        })
        yield* writeReceipt(next)
        return { receipt: next, observed: seen.observed }
      })
    )
  })

export const operationResult = (receipt: Receipt, observed?: Record<string, unknown>): ToolResult => ({
  summary: `Request ${receipt.requestId} (${receipt.action}) is ${receipt.state}${SETTLED.includes(receipt.state) ? "" : receipt.state === "unknown" ? ": its outcome is not proven; observe again, never retry with a new request id" : ": it has not run"}.`,
  data: {
    status: receipt.state,
    ...receiptData(receipt),
    ...(observed === undefined ? {} : { observed: scrubDeep(observed) })
  },
  retention: {
    importance: receipt.state === "unknown" ? "critical" : "normal",
    facts: [`request ${receipt.requestId} ${receipt.action}: ${receipt.state}`]
  }
})

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

const ActionPlan = Schema.TaggedStruct("WorkspaceAction", {
  request_id: Schema.String,
  action: Schema.String,
  inputs_hash: Schema.String,
  context_id: Schema.String,
  tree: Schema.String
})
type ActionPlan = typeof ActionPlan.Type

type Loaded =
  | { readonly _tag: "Settled"; readonly receipt: Receipt }
  | {
      readonly _tag: "Review"
      readonly git: Git
      readonly binding: Binding
      readonly review: Review
      readonly hash: string
      readonly input: ActionInput
    }

const inputsHashOf = (input: ActionInput) => hashOperation({ action: input.action, inputs: inputsOf(input) })

const conflict = (requestId: string) =>
  toolError(
    "EDIT_CONFLICT",
    `request_id ${requestId} was already used with different inputs; an original request keeps its exact inputs. Poll it with get_workspace_operation, or create a new request id for a new action.`,
    { request_id: requestId }
  )

const loadAction = (input: ActionInput) =>
  Effect.gen(function* () {
    const git = yield* requireGit
    const hash = yield* inputsHashOf(input)
    const receipt = yield* readReceipt(input.request_id)
    if (receipt !== undefined && receipt.inputsHash !== hash) return yield* Effect.fail(conflict(input.request_id))
    if (receipt !== undefined && receipt.state !== "needs_confirmation")
      return { _tag: "Settled", receipt } satisfies Loaded as Loaded
    const binding = yield* checkContext(git, input.context_id)
    const review = yield* reviewOf(git, input, binding)
    return { _tag: "Review", git, binding, review, hash, input } satisfies Loaded as Loaded
  })

const planAction = (input: ActionInput, loaded: Loaded) => {
  if (loaded._tag === "Settled") {
    const result = operationResult(loaded.receipt)
    return Either.right({
      _tag: "NoOp" as const,
      result: { ...result, summary: `${result.summary} Nothing was replayed.` }
    })
  }
  const inputs = inputsOf(input)
  const destructive = DESTRUCTIVE.includes(input.action)
  const planned: Planned<ActionPlan, Loaded> = {
    _tag: "Planned",
    plan: {
      _tag: "WorkspaceAction",
      request_id: input.request_id.toLowerCase(),
      action: input.action,
      inputs_hash: loaded.hash,
      context_id: input.context_id,
      tree: loaded.binding.tree
    },
    work: loaded,
    title: `workspace_action ${input.action} (request ${input.request_id})`,
    prompt: { _tag: "vcs", argv: [...loaded.review.argv], cwd: ".", refs: [...loaded.review.refs] },
    ...(destructive
      ? { destructive: { command: `workspace_action ${input.action}`, reasons: [{ operation: input.action }] } }
      : {}),
    resume: { tool: "workspace_action", arguments: { action: input.action, ...inputs } },
    preview: {
      data: {
        status: "needs_confirmation",
        request_id: input.request_id,
        action: input.action,
        guide: loaded.review.guide,
        review: { argv: loaded.review.argv, refs: loaded.review.refs }
      }
    }
  }
  return Either.right(planned)
}

/** The receipt of a staged request, written once (state needs_confirmation) so its inputs are fixed from the start. */
const recordAction = (planned: Planned<ActionPlan, Loaded>) =>
  Effect.gen(function* () {
    const work = planned.work
    if (work._tag !== "Review") return planned
    yield* withReceiptLock(
      work.input.request_id,
      Effect.gen(function* () {
        const existing = yield* readReceipt(work.input.request_id)
        if (existing !== undefined)
          return existing.inputsHash === work.hash ? undefined : yield* Effect.fail(conflict(work.input.request_id))
        const at = yield* nowIso
        const receipt: Receipt = {
          version: 1,
          requestId: work.input.request_id.toLowerCase(),
          action: work.input.action,
          inputs: inputsOf(work.input),
          inputsHash: work.hash,
          context: {
            contextId: work.input.context_id,
            branch: work.binding.branch,
            head: work.binding.head,
            tree: work.binding.tree
          },
          state: "needs_confirmation",
          phases: { local_applied: null, published: null, reloaded: null },
          expect: {},
          history: [{ state: "needs_confirmation", at }],
          createdAt: at,
          updatedAt: at
        }
        return yield* writeReceipt(receipt)
      })
    )
    return planned
  })

/** Runs a confirmed request once: intent (unknown) before the effect, the outcome after; never twice. */
const interpretAction = (_plan: ActionPlan, work: Loaded) =>
  Effect.gen(function* () {
    if (work._tag !== "Review") return work._tag === "Settled" ? work.receipt : yield* Effect.die("unreachable")
    const requestId = work.input.request_id
    return yield* withReceiptLock(
      requestId,
      Effect.gen(function* () {
        const receipt = yield* readReceipt(requestId)
        if (receipt === undefined) return yield* Effect.fail(noReceipt(requestId))
        if (receipt.state !== "needs_confirmation") return receipt
        const expect = yield* expectOf(work.git, work.input, work.binding)
        const intent = yield* advance(receipt, "unknown", yield* nowIso, {
          expect,
          note: "intent written; effect starting"
        })
        yield* writeReceipt(intent)
        const settlement = yield* Effect.either(runEffect(work.git, intent))
        if (Either.isLeft(settlement)) {
          // A timeout or an error whose effect cannot be known: the receipt stays unknown for reconciliation.
          const kept = { ...intent, outcome: { code: settlement.left.code, message: settlement.left.message } }
          yield* writeReceipt(kept)
          return kept
        }
        const settled = settlement.right
        const next = yield* advance(intent, settled.state, yield* nowIso, {
          phases: settled.phases,
          outcome: settled.outcome,
          ...(settled.expect === undefined ? {} : { expect: settled.expect })
        })
        yield* writeReceipt(next)
        return next
      })
    )
  })

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

const actionCapabilityCheck = (args: unknown) => {
  const action = (args as { action?: unknown } | null)?.action
  if (typeof action !== "string" || !(WORKSPACE_ACTIONS as ReadonlyArray<string>).includes(action))
    return requireCapabilities([COMMANDS_CAPABILITY], "workspace_action")
  return Effect.flatMap(usableNow, (usable) => {
    const absent = actionNeeds(action as WorkspaceActionName).find((capability) => !usable.includes(capability))
    if (absent !== undefined) return Effect.fail(missing(absent, `The ${action} action`))
    return Effect.void
  })
}

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
    probe: {
      args: {
        action: "commit",
        context_id: "00000000-0000-8000-8000-000000000000",
        request_id: "00000000-0000-8000-8000-000000000000",
        message: "probe"
      },
      ok: false
    },
    precheck: actionCapabilityCheck,
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

export type { ToolContext }
export { isBuilt }
