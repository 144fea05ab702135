/**
 * The registry: which tools are registered for the settings and host in force, and `call(name, args)`,
 * which always yields an envelope. It is the orchestrator of every call: decode (INVALID_INPUT before
 * any gating), then an ungated action runs, and a gated one goes load -> plan -> gate -> interpret ->
 * view. Nothing throws past it: tool failures keep their code, defects are INTERNAL_ERROR without a stack.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { boundRefusal, echo, measureInput } from "./protocol/bounds.ts"
import { type EncodedPlan, type GateRequest, gated } from "./gate/gate.ts"
import { type Envelope, failure, success, type ToolResult } from "./protocol/envelope.ts"
import { type ToolError, toolError } from "./protocol/errors.ts"
import { CAPABILITY_SERVICE, type HostInfoShape } from "./services/HostFs.ts"
import { isRegistered, missingService } from "./services/RegisteredTools.ts"
import type { Settings } from "./settings/settings.ts"
import { withOwnStore } from "./ownStore.ts"
import { ALL_TOOLS } from "./tools/index.ts"
import {
  type AnyGatedAction,
  type JsonSchemaObject,
  type Planned,
  type ToolAnnotations,
  type KernelContext,
  type ToolContext,
  type ToolDefinition,
  type ToolHints,
  toolAnnotations,
  toolInputSchema,
  toolReady
} from "./tools/Tool.ts"
import { defined } from "./text/defined.ts"

/** What tools/list shows of one tool. */
export interface ToolListing {
  readonly name: string
  readonly description: string
  readonly inputSchema: JsonSchemaObject
  readonly annotations: ToolAnnotations
}

/**
 * The registered tools and the one entry point for calling them; `R` is what a call needs (the tools'
 * services, or nothing for the diagnostic registry of a runtime that did not start).
 */
export interface Registry<R = KernelContext> {
  readonly tools: ReadonlyArray<ToolDefinition>
  readonly list: () => ReadonlyArray<ToolListing>
  readonly call: (name: string, args: unknown) => Effect.Effect<Envelope, never, R>
}

/** The name of the diagnostic tool registered when the runtime cannot initialise. */
export const STATUS_TOOL = "agentic_workspace_status"

/** How many decode issues a refusal names (a wide wrong-typed array has one per element). */
const MAX_ISSUES = 10

/** The diagnostic tool's hints (its row of the docs/mcp.md table). */
export const STATUS_HINTS: ToolHints = {
  readOnlyHint: true,
  destructiveHint: false,
  openWorldHint: false,
  why: "the diagnostic tool of a workspace that could not open"
}

/** The JSON type of a value, as a model would name it. */
const jsonType = (value: unknown): string =>
  value === null
    ? "null"
    : Array.isArray(value)
      ? "an array"
      : typeof value === "object"
        ? "an object"
        : typeof value === "string"
          ? "a string"
          : `a ${typeof value}`

const valueAt = (input: unknown, path: ReadonlyArray<PropertyKey>): unknown =>
  path.reduce<unknown>(
    (at, key) => (at !== null && typeof at === "object" ? (at as Record<PropertyKey, unknown>)[key] : undefined),
    input
  )

/**
 * A type mismatch named for a model: an array field sent as a string (JSON text) or a single object
 * says to pass a JSON array; any other mismatch whose generated message is long type syntax says
 * what type the field takes instead of listing the schema.
 */
const typeRepair = (tool: ToolDefinition, field: string, actual: unknown, generated: string): string | undefined => {
  const listed = (toolInputSchema(tool).properties[field] ?? {}) as { type?: string; items?: { type?: string } }
  if (listed.type === "array" && !Array.isArray(actual)) {
    const of = listed.items?.type === "object" ? "a JSON array of objects" : "a JSON array"
    const how =
      typeof actual === "string"
        ? "the array itself, not a string holding JSON"
        : actual !== null && typeof actual === "object"
          ? "even for one item: wrap the object in [ ]"
          : `not ${jsonType(actual)}`
    return `must be ${of}, got ${jsonType(actual)}: pass ${field} as ${of} (${how})`
  }
  if (generated.length <= 160) return undefined
  const wanted =
    listed.type === undefined
      ? "the type the tool lists"
      : listed.type === "object"
        ? "a JSON object"
        : `${listed.type === "integer" ? "an" : "a"} ${listed.type}`
  return `must be ${wanted}, got ${jsonType(actual)}`
}

const formatIssues = (
  tool: ToolDefinition,
  input: unknown,
  error: ParseResult.ParseError
): { message: string; fields: Array<string> } => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  const fields = issues.slice(0, MAX_ISSUES).map((issue) => echo(issue.path.map(String).join("."), 100))
  const message = issues
    .slice(0, MAX_ISSUES)
    .map((issue) => {
      const field = echo(issue.path.map(String).join("."), 100)
      const top = issue.path.length > 0 ? String(issue.path[0]) : undefined
      const repaired =
        issue._tag === "Type" && top !== undefined
          ? typeRepair(tool, issue.path.length === 1 ? top : "", valueAt(input, issue.path), issue.message)
          : undefined
      // The issue's text repeats the value it got ("actual …"): clipped, like every echoed value.
      const text =
        issue._tag === "Unexpected" ? "is not a field of this action; remove it" : echo(repaired ?? issue.message)
      return field === ""
        ? text
        : `field "${field}" ${text.startsWith("is ") || text.startsWith("must ") ? text : `: ${text}`}`
    })
    .join("; ")
  return {
    message: issues.length > MAX_ISSUES ? `${message}; and ${issues.length - MAX_ISSUES} more problem(s)` : message,
    fields
  }
}

/** snake_case of a camelCase name ("transactionId" -> "transaction_id"). */
const snakeCase = (name: string): string =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/-/g, "_")
    .toLowerCase()

/**
 * Why a field does not belong to this action, and the repair: the snake_case field it resembles
 * ("did you mean transaction_id?"), the actions it belongs to, or the fields this action takes.
 */
const misplacedField = (tool: ToolDefinition, action: string, field: string): string => {
  const fieldsOf = (name: string) =>
    Object.keys((tool.actions[name] as { fields?: Record<string, unknown> }).fields ?? {})
  const own = fieldsOf(action)
  const owners = (name: string) => Object.keys(tool.actions).filter((other) => fieldsOf(other).includes(name))
  const snake = snakeCase(field)
  // The name it got is echoed clipped, like every echoed value.
  const named = echo(field, 100)
  if (snake !== field && own.includes(snake))
    return `field "${named}" is not a field of ${action}: did you mean ${snake}? (inputs are snake_case)`
  if (snake !== field && owners(snake).length > 0)
    return `field "${named}" is not a field of ${action}: did you mean ${snake}? (inputs are snake_case; ${snake} belongs to ${owners(snake).join(", ")})`
  const elsewhere = owners(field)
  if (elsewhere.length > 0)
    return `field "${named}" belongs to ${elsewhere.join(", ")}, not ${action}; remove it or use that action`
  return `field "${named}" is not a field of ${action}${own.length === 0 ? " (it takes no fields)" : ` (its fields: ${own.join(", ")})`}; remove it`
}

/** Decodes a call's arguments for a tool into `{action, ...fields}` or an INVALID_INPUT naming the field. */
export const decodeInput = (
  tool: ToolDefinition,
  args: unknown
): Either.Either<{ action: string } & Record<string, unknown>, ToolError> => {
  const actions = Object.keys(tool.actions)
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    return Either.left(
      toolError(
        "INVALID_INPUT",
        `The arguments of ${tool.name} must be a JSON object with an "action" field (one of: ${actions.join(", ")}).`
      )
    )
  }
  // Bounded before anything decodes it: a schema walks recursively, so depth is a stack's worth of risk.
  const outOfBounds = measureInput(args)
  if (outOfBounds !== undefined)
    return Either.left(toolError("INVALID_INPUT", `Invalid ${tool.name} call: ${outOfBounds}.`))
  // A bare tool takes its one action's fields alone: an "action" field is then a field like any other.
  const split = (): { action: unknown; fields: Record<string, unknown> } => {
    if (tool.bare !== undefined) return { action: tool.bare, fields: { ...(args as Record<string, unknown>) } }
    const { action, ...rest } = args as Record<string, unknown>
    return { action, fields: rest }
  }
  const { action, fields } = split()
  if (typeof action !== "string") {
    return Either.left(
      toolError("INVALID_INPUT", `field "action" is required: one of ${actions.join(", ")}.`, {
        field: "action",
        allowed: actions
      })
    )
  }
  const schema = Object.hasOwn(tool.actions, action) ? tool.actions[action] : undefined
  if (schema === undefined) {
    return Either.left(
      toolError(
        "INVALID_INPUT",
        `Unknown action "${echo(action, 100)}" for ${tool.name}; use one of: ${actions.join(", ")}.`,
        {
          field: "action",
          allowed: actions
        }
      )
    )
  }
  // An empty Schema.Struct({}) accepts any object whatever onExcessProperty says, so extra fields are
  // checked against the struct's own fields too: an action without fields takes no fields.
  const known = (schema as { fields?: Record<string, unknown> }).fields
  const extra = known === undefined ? [] : Object.keys(fields).filter((field) => !Object.hasOwn(known, field))
  if (extra.length > 0) {
    return Either.left(
      toolError(
        "INVALID_INPUT",
        `Invalid ${tool.name} ${action}: ${extra
          .slice(0, MAX_ISSUES)
          .map((field) => misplacedField(tool, action, field))
          .join("; ")}${extra.length > MAX_ISSUES ? `; and ${extra.length - MAX_ISSUES} more unknown field(s)` : ""}.`,
        { fields: extra.slice(0, MAX_ISSUES).map((field) => echo(field, 100)) }
      )
    )
  }
  const decoded = Schema.decodeUnknownEither(schema, { onExcessProperty: "error", errors: "all" })(fields)
  return Either.match(decoded, {
    onLeft: (error) => {
      const { message, fields: named } = formatIssues(tool, fields, error)
      return Either.left(toolError("INVALID_INPUT", `Invalid ${tool.name} ${action}: ${message}.`, { fields: named }))
    },
    onRight: (value) => Either.right({ action, ...(value as Record<string, unknown>) })
  })
}

/** Turns a failure or a defect of an action into its envelope: nothing throws past the registry. */
const settle = (
  tool: ToolDefinition,
  operation: string,
  action: string,
  effect: Effect.Effect<ToolResult, ToolError, ToolContext>
) =>
  effect.pipe(
    Effect.map((result) => success(operation, result)),
    Effect.catchAll((error) =>
      Effect.succeed(
        failure(operation, {
          code: error.code,
          message: error.message,
          ...defined({ details: error.details })
        })
      )
    ),
    Effect.catchAllCause((cause) =>
      Effect.succeed(
        failure(operation, {
          code: "INTERNAL_ERROR",
          message: `${tool.name} ${action} failed inside the toolkit (${defectText(cause)}). Nothing more is known about its effect; check with workspace_inspect changes before retrying.`
        })
      )
    )
  )

/**
 * The orchestration of a gated action: load -> plan (pure) -> gate -> interpret -> view. The Plan is
 * encoded through its Schema and that encoding is what the gate hashes; a Plan that does not encode is
 * a defect of the tool, never a silent cast.
 */
export const runGated = (
  tool: ToolDefinition,
  operation: string,
  action: AnyGatedAction,
  input: unknown
): Effect.Effect<ToolResult, ToolError, ToolContext> =>
  Effect.gen(function* () {
    const before = yield* action.load(input)
    const step = yield* action.plan(input, before)
    if (step._tag === "NoOp") return step.result
    const confirm =
      typeof action.confirm === "function"
        ? action.confirm(input, before)
          ? ("always" as const)
          : undefined
        : action.confirm
    const requestOf = (planned: Planned<unknown, unknown>) =>
      Effect.map(
        Schema.encode(action.planSchema)(planned.plan).pipe(Effect.orDie),
        (normalized): GateRequest => ({
          tool: tool.name,
          operation,
          kind: action.kindOf === undefined ? action.gate : action.kindOf(input),
          ...defined({ confirm }),
          ...(planned.nothingToGateInManual === true ? { nothingToGateInManual: true } : {}),
          title: planned.title,
          normalized: normalized as EncodedPlan,
          prompt: planned.prompt,
          ...defined({ destructive: planned.destructive }),
          resume: planned.resume,
          ...defined({ preview: planned.preview })
        })
      )
    let current: Planned<unknown, unknown> = step
    const record =
      action.record === undefined
        ? undefined
        : Effect.flatMap(action.record(step), (recorded: Planned<unknown, unknown>) => {
            current = recorded
            return requestOf(recorded)
          })
    return yield* gated(
      yield* requestOf(step),
      () => Effect.flatMap(action.interpret(current.plan, current.work), (outcome) => action.view(outcome, current)),
      record
    )
  })

const runTool = (tool: ToolDefinition, args: unknown): Effect.Effect<Envelope, never, KernelContext> => {
  const given = tool.bare ?? (args as { action?: unknown } | null)?.action
  // The operation names the action as given, clipped like every echoed value.
  const actionName = typeof given === "string" ? echo(given, 64) : "invalid"
  const operation = `${tool.short}.${actionName}`
  const decodeAndRun = Either.match(decodeInput(tool, args), {
    onLeft: (error) => Effect.succeed(failure(operation, error)),
    onRight: (input) => {
      const action = tool.handlers[input.action]!
      return settle(
        tool,
        operation,
        input.action,
        action.gate === "none" ? action.run(input) : runGated(tool, operation, action, input)
      )
    }
  })
  const checked =
    tool.precheck === undefined
      ? decodeAndRun
      : Effect.flatMap(Effect.either(tool.precheck(args)), (checked) =>
          Either.isLeft(checked) ? Effect.succeed(failure(operation, checked.left)) : decodeAndRun
        )
  return withOwnStore(tool, checked)
}

const defectText = (cause: Cause.Cause<unknown>): string => {
  const defect = Cause.squash(cause)
  const text = defect instanceof Error ? `${defect.name}: ${defect.message}` : String(defect)
  return text.split("\n")[0]!.slice(0, 300)
}

/** The registry for these settings and host: only tools the settings enable and the host can serve are registered. */
export const makeRegistry = (
  settings: Settings,
  host: HostInfoShape,
  candidates: ReadonlyArray<ToolDefinition> = ALL_TOOLS,
  known: ReadonlyArray<ToolDefinition> = candidates
): Registry => {
  const tools = candidates.filter((tool) => isRegistered(tool, settings, host))
  const byName = new Map(tools.map((tool) => [tool.name, tool]))
  // The tools, the settings and the host are fixed for the registry's life: the listing is built once, on first use.
  let listing: ReadonlyArray<ToolListing> | undefined
  return {
    tools,
    list: () =>
      (listing ??= tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: toolInputSchema(tool),
        annotations: toolAnnotations(tool, settings)
      }))),
    call: (name, args) =>
      Effect.map(callUnbounded(name, args), (envelope) => boundRefusal(envelope, settings.maxToolResultChars))
  }
  function callUnbounded(name: string, args: unknown): Effect.Effect<Envelope, never, KernelContext> {
    const tool = byName.get(name)
    if (tool === undefined) {
      const candidate = known.find((entry) => entry.name === name)
      const lacking = candidate === undefined ? undefined : missingService(candidate, host)
      return Effect.succeed(
        failure(
          `${echo(name, 100)}.call`,
          candidate === undefined
            ? toolError(
                "INVALID_INPUT",
                `Unknown tool "${echo(name, 100)}". Registered tools: ${tools.map((t) => t.name).join(", ")}.`,
                { tool: echo(name, 100) }
              )
            : lacking !== undefined
              ? toolError(
                  "TOOL_DISABLED",
                  `${name} is not available: this host (${host.runtime}) has no ${CAPABILITY_SERVICE[lacking]} service.`,
                  {
                    tool: name,
                    runtime: host.runtime,
                    service: lacking
                  }
                )
              : toolError(
                  "TOOL_DISABLED",
                  `${name} is not registered under the current settings (the user controls which tools are enabled).`,
                  { tool: name }
                )
        )
      )
    }
    // A lazy tool loads its handlers first; suspend: a handler (or a load) that throws is a defect, never a throw past the registry.
    return Effect.zipRight(
      toolReady(tool),
      Effect.suspend(() => runTool(tool, args))
    ).pipe(
      Effect.catchAllCause((cause) =>
        Effect.succeed(
          failure(`${tool.short}.call`, {
            code: "INTERNAL_ERROR",
            message: `${name} failed inside the toolkit (${defectText(cause)}).`
          })
        )
      )
    )
  }
}

/** The registry offered when the runtime cannot initialise: one diagnostic tool that says why. */
export const statusRegistry = (reason: string, repair: string): Registry<never> => {
  const listing: ToolListing = {
    name: STATUS_TOOL,
    description:
      "Reports why agentic-workspace could not start in this folder and how to repair it. The workspace tools are unavailable until then.",
    inputSchema: { type: "object", properties: {}, required: [], additionalProperties: true },
    annotations: {
      readOnlyHint: STATUS_HINTS.readOnlyHint === true,
      destructiveHint: STATUS_HINTS.destructiveHint === true,
      openWorldHint: STATUS_HINTS.openWorldHint === true
    }
  }
  const envelope = failure("status.check", {
    code: "RUNTIME_UNAVAILABLE",
    message: `agentic-workspace could not initialise: ${reason}. ${repair}`,
    details: { reason }
  })
  return {
    tools: [],
    list: () => [listing],
    call: (name) =>
      Effect.succeed(
        name === STATUS_TOOL
          ? envelope
          : failure(
              `${name}.call`,
              toolError("RUNTIME_UNAVAILABLE", `Only ${STATUS_TOOL} is available: ${reason}. ${repair}`)
            )
      )
  }
}
