/**
 * The contract of a tool: a name, a description, one input Schema per action, and per action a
 * declaration: `ungated(run)` for an action that never needs the user, or a gated declaration
 * (`gate: kind`) that supplies `load` (the before-state), a pure `plan` returning a tagged Plan
 * value (a Schema), `interpret(plan)` and `view`. The registry is the orchestrator: it decodes the
 * input (INVALID_INPUT before any gating), then for a gated action runs load -> plan -> gate ->
 * interpret -> view, so a gated action cannot reach its interpreter without the gate.
 * A definition also carries what the tool contributes to the kernel: start-up steps, its `changes`
 * source, its `.agentic/` storage entries, its MCP probe call and the hints its annotations follow.
 */
import type { HttpClient } from "@effect/platform/HttpClient"
import type * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as JSONSchema from "effect/JSONSchema"
import * as Schema from "effect/Schema"
import type { Prompt } from "../gate/prompt.ts"
import type { DestructiveReason, RecordKind, ResumeCall } from "../gate/records.ts"
import type { Artifact, ToolResult } from "../protocol/envelope.ts"
import type { ToolError } from "../protocol/errors.ts"
import type { WorkspaceKey } from "../gate/key.ts"
import type { Browser } from "../services/Browser.ts"
import type { CurrentSettings } from "../services/CurrentSettings.ts"
import type { NetState } from "../net/NetState.ts"
import type { Capability, HostFs, HostInfo, HostInfoShape } from "../services/HostFs.ts"
import type { Processes } from "../services/Processes.ts"
import type { RegisteredTools } from "../services/RegisteredTools.ts"
import type { RunWorkers } from "../services/RunWorkers.ts"
import type { Search } from "../services/Search.ts"
import type { Workspace, WorkspaceWrites } from "../services/Workspace.ts"
import type { Settings } from "../settings/settings.ts"
import type { StateStore } from "../store/StateStore.ts"

/**
 * The services of a gated action's interpreter (and of the kernel's own steps: start-up, `record`, `view`,
 * the changes sources); adapters provide all of them (a missing one as a layer that refuses).
 */
export type ToolContext =
  | Workspace
  | WorkspaceWrites
  | StateStore
  | CurrentSettings
  | HostInfo
  | HostFs
  | Processes
  | Search
  | RegisteredTools
  | WorkspaceKey
  | HttpClient
  | NetState
  | Browser
  | RunWorkers

/**
 * The context of a handler that must not change anything: an ungated action's `run` and a gated action's
 * `load` (its `plan` is pure). It lacks the writing services (`WorkspaceWrites`), so a handler that writes
 * from `run` or `load` does not type-check (spec/kernel/read-only-context.test.ts).
 */
export type ReadContext = Exclude<ToolContext, WorkspaceWrites>

/** The action schemas of a tool: action name -> the Struct of its fields (without `action`). */
export type ActionSchemas = Record<string, Schema.Schema.AnyNoContext>

/** The decoded input of one action, with its `action` tag. */
export type ActionInput<S extends ActionSchemas, K extends keyof S> = { readonly action: K } & Schema.Schema.Type<S[K]>

/** MCP-style hints, as tools/list sends them. */
export interface ToolAnnotations {
  readonly readOnlyHint: boolean
  readonly destructiveHint: boolean
  readonly openWorldHint: boolean
  readonly idempotentHint?: boolean
}

/** The boolean settings a hint may follow. */
export type BooleanSetting = { [K in keyof Settings]: Settings[K] extends boolean ? K : never }[keyof Settings]

/** A hint: fixed, one boolean setting, or any/all of several. */
export type HintExpr =
  | boolean
  | BooleanSetting
  | { readonly anyOf: ReadonlyArray<BooleanSetting> }
  | { readonly allOf: ReadonlyArray<BooleanSetting> }

/** The one field per tool its annotations and the docs/mcp.md table follow. */
export interface ToolHints {
  readonly readOnlyHint: HintExpr
  readonly destructiveHint: HintExpr
  readonly openWorldHint: HintExpr
  readonly idempotentHint?: boolean
  /** The table's "why" column. */
  readonly why: string
}

/** Evaluates a hint under the settings in force. */
export const evaluateHint = (hint: HintExpr, settings: Settings): boolean => {
  if (typeof hint === "boolean") return hint
  if (typeof hint === "string") return settings[hint]
  return "anyOf" in hint ? hint.anyOf.some((name) => settings[name]) : hint.allOf.every((name) => settings[name])
}

/** A hint as the docs table writes it: true, false, a setting, "a or b", "a and b". */
export const hintText = (hint: HintExpr): string => {
  if (typeof hint === "boolean" || typeof hint === "string") return String(hint)
  return "anyOf" in hint ? hint.anyOf.join(" or ") : hint.allOf.join(" and ")
}

/** The annotations of a tool under the settings in force, derived from its hints. */
export const toolAnnotations = (tool: Pick<ToolDefinition, "hints">, settings: Settings): ToolAnnotations => ({
  readOnlyHint: evaluateHint(tool.hints.readOnlyHint, settings),
  destructiveHint: evaluateHint(tool.hints.destructiveHint, settings),
  openWorldHint: evaluateHint(tool.hints.openWorldHint, settings),
  ...(tool.hints.idempotentHint === undefined ? {} : { idempotentHint: tool.hints.idempotentHint })
})

/** The gate kinds (the reference's approval.kind values). */
export type GateKind = Exclude<RecordKind, "plan">

/** An action that never asks the user: it runs as soon as its input decodes. */
export interface UngatedAction<I> {
  readonly gate: "none"
  readonly run: (input: I) => Effect.Effect<ToolResult, ToolError, ReadContext>
}

/** Declares an action ungated. */
export const ungated = <I>(run: (input: I) => Effect.Effect<ToolResult, ToolError, ReadContext>): UngatedAction<I> => ({
  gate: "none",
  run
})

/** Present when a planned operation is destructive: the command and what made it so. */
export interface Destructive {
  readonly command: string
  readonly reasons: ReadonlyArray<DestructiveReason>
}

/**
 * What `plan` returns for an operation the gate must decide: the Plan (its Schema encoding is what an
 * approval is bound to), what the user is asked (`prompt`), and what is shown around it. `work` is the
 * interpreter's working data (file bytes, resolved paths); it is never hashed.
 */
export interface Planned<P, W> {
  readonly _tag: "Planned"
  readonly plan: P
  readonly work: W
  /** What the user is asked to approve, e.g. "Commit tx_1234". */
  readonly title: string
  readonly prompt: Prompt
  readonly destructive?: Destructive
  /** The exact call that runs the operation after the user's /accept. */
  readonly resume: ResumeCall
  /** The tool's normal preview fields, shown beside a staged approval. */
  readonly preview?: { readonly data?: Record<string, unknown>; readonly artifacts?: ReadonlyArray<Artifact> }
  /**
   * The reference's Manual-mode exception: a call with nothing to gate (a sub-agent run that can neither run
   * commands nor reach the web) runs in Manual mode without staging. Plan mode and the ceiling still apply.
   */
  readonly nothingToGateInManual?: boolean
}

/** What `plan` returns when there is nothing to gate (re-committing a committed transaction): the result as it is. */
export interface NoOp {
  readonly _tag: "NoOp"
  readonly result: ToolResult
}

/** A planned call, or a no-op. */
export type PlanStep<P, W> = Planned<P, W> | NoOp

/** A gated action; `E` is the Plan's encoded form (its Schema's `Encoded`). */
export interface GatedAction<I, B, P, W, O, E = unknown> {
  readonly gate: GateKind
  /**
   * Only for a test tool that exercises every kind through one action: the kind of this call. Shipped
   * tools declare one kind, which the gated-set spec reads.
   */
  readonly kindOf?: (input: I) => GateKind
  /**
   * "always": staged for the user in every mode (Auto and an approved plan included). A function decides
   * per call from the input and the before-state (workspace_research's stageEgressAfterUntrustedRead).
   */
  readonly confirm?: "always" | ((input: I, before: B) => boolean)
  /** The Plan's Schema: a tagged struct (or union of them) whose encoding is stable JSON. */
  readonly planSchema: Schema.Schema<P, E, never>
  /** Reads the before-state through services. Writes nothing (its context has no writing service). */
  readonly load: (input: I) => Effect.Effect<B, ToolError, ReadContext>
  /** Pure: input + before-state -> the planned call, a no-op, or the refusal. */
  readonly plan: (input: I, before: B) => Either.Either<PlanStep<P, W>, ToolError>
  /**
   * Optional: keeps the tool's own record of a planned call once the gate has ruled out the destructive
   * ceiling, before it stages or runs it (workspace_edit apply stores its transaction here, so the
   * approval's resume call can name it). Returns the planned call with its title, resume and preview.
   */
  readonly record?: (planned: Planned<P, W>) => Effect.Effect<Planned<P, W>, ToolError, ToolContext>
  /** Carries out the plan; runs only when the gate says so. */
  readonly interpret: (plan: P, work: W) => Effect.Effect<O, ToolError, ToolContext>
  /** The result the model sees of what the interpreter did. */
  readonly view: (outcome: O, planned: Planned<P, W>) => Effect.Effect<ToolResult, ToolError, ToolContext>
}

/** Declares a gated action; the generics are inferred from `load`, `planSchema` and `interpret`. */
export const gatedAction = <I, B, P, W, O, E>(action: GatedAction<I, B, P, W, O, E>): GatedAction<I, B, P, W, O, E> =>
  action

/**
 * A gated action as the registry runs it: its before-state, Plan, working data and outcome opaque, its Plan
 * Schema any Schema (Effect's own `AnyNoContext`): the registry only passes each value on to the next step.
 * Its steps are declared as methods, whose parameters TypeScript compares both ways: that is what lets every
 * `GatedAction<I, B, P, W, O, E>` stand here (and every tool in one `ToolDefinition` list) with no cast.
 */
export interface AnyGatedAction<I = unknown> {
  readonly gate: GateKind
  kindOf?(input: I): GateKind
  readonly confirm?: "always" | { confirm(input: I, before: unknown): boolean }["confirm"]
  readonly planSchema: Schema.Schema.AnyNoContext
  load(input: I): Effect.Effect<unknown, ToolError, ReadContext>
  plan(input: I, before: unknown): Either.Either<PlanStep<unknown, unknown>, ToolError>
  record?(planned: Planned<unknown, unknown>): Effect.Effect<Planned<unknown, unknown>, ToolError, ToolContext>
  interpret(plan: unknown, work: unknown): Effect.Effect<unknown, ToolError, ToolContext>
  view(outcome: unknown, planned: Planned<unknown, unknown>): Effect.Effect<ToolResult, ToolError, ToolContext>
}

/** One action's declaration. */
export type ActionDef<I> = UngatedAction<I> | AnyGatedAction<I>

/** One start-up step: a name for logs and the effect that runs it. */
export interface StartupStep {
  readonly name: string
  readonly run: Effect.Effect<void, ToolError, ToolContext>
}

/** The keys of `data` in the changes listing. */
export type ChangeKey = "transactions" | "runs" | "jobs" | "taskBoards" | "researchProjects" | "vcs"

/** One contributor to the changes listing: its entries, newest first, in the reference's shape. */
export interface ChangeSource {
  readonly key: ChangeKey
  /** Read by `workspace_inspect changes`, an ungated action: it reads only. */
  readonly list: Effect.Effect<ReadonlyArray<unknown>, ToolError, ReadContext>
}

/** One entry of the `.agentic/` storage map that capabilities reports. */
export interface StorageEntry {
  readonly name: string
  /** As shown, e.g. ".agentic/jobs/<job_id>/". */
  readonly path: string
  /** The store path whose existence capabilities reports. */
  readonly probe: string
  readonly description: string
  /** Where the entry sits in the map (the reference's order). */
  readonly rank: number
}

/** A tool's simplest read, called by the MCP specs on every registered tool; `ok` is what it must answer. */
export interface Probe {
  readonly args: Record<string, unknown>
  readonly ok: boolean | "any"
}

/** One public tool. */
export interface ToolDefinition<S extends ActionSchemas = ActionSchemas> {
  /** The wire name, e.g. "workspace_plan". */
  readonly name: string
  /** The prefix of operation names, e.g. "plan" for "plan.propose". */
  readonly short: string
  readonly description: string
  readonly actions: S
  /** Whether the settings register the tool (the host's services are checked through `requires`). */
  readonly enabled: (settings: Settings, host: HostInfoShape) => boolean
  /** The host services the tool cannot work without; a host lacking one does not list the tool. */
  readonly requires?: ReadonlyArray<Capability>
  readonly hints: ToolHints
  readonly handlers: { readonly [K in keyof S]: ActionDef<ActionInput<S, K>> }
  readonly startup?: ReadonlyArray<StartupStep>
  readonly changes?: ReadonlyArray<ChangeSource>
  readonly storage?: ReadonlyArray<StorageEntry>
  readonly probe: Probe
  /**
   * Optional: the one action of a tool whose input has no `action` field (the Workspaces tools, whose wire
   * shapes come from their reference): the registry decodes the whole object as that action's fields.
   */
  readonly bare?: string
  /**
   * Optional: a check of the raw arguments before the schema decode (workspaces: CAPABILITY_MISSING for an
   * action or view outside the usable capabilities, so it is never decoded nor attempted).
   */
  readonly precheck?: (args: unknown) => Effect.Effect<void, ToolError, ToolContext>
  /**
   * Optional: the tool as this host advertises it, decided once when the runtime starts (after the start-up
   * steps): a narrower tool (fewer actions), or undefined for none. Without it the tool is advertised as it is.
   */
  readonly advertise?: Effect.Effect<ToolDefinition | undefined, never, ToolContext>
}

/** Identity with inference: `defineTool({...})`. */
export const defineTool = <S extends ActionSchemas>(tool: ToolDefinition<S>): ToolDefinition<S> => tool

/** The gate kind an action declares, or undefined for an ungated one. */
export const gateOf = (tool: ToolDefinition, action: string): GateKind | undefined => {
  const def = tool.handlers[action]
  return def === undefined || def.gate === "none" ? undefined : def.gate
}

/** A JSON Schema object (what MCP's tools/list carries as inputSchema). */
export type JsonSchemaObject = {
  readonly type: "object"
  readonly properties: Record<string, unknown>
  readonly required: ReadonlyArray<string>
  readonly additionalProperties: boolean
}

/**
 * One flat object schema for all actions: `action` is an enum, every other field is optional at the
 * top level (each action's own required fields are listed in the field's description), because MCP
 * clients expect `type: "object"` at the root. The schema is written for a model to read: Effect's
 * internal annotations (`title: "maxLength(4096)"`, "a string at most 4096 character(s) long") are
 * dropped, a `$ref` keeps its sibling description and bounds, and a field whose meaning differs between
 * actions says what it means for each. Computed once per tool definition (its actions never change):
 * callers read it or copy it, never change it.
 */
export const toolInputSchema = (tool: ToolDefinition): JsonSchemaObject => {
  let schema = inputSchemas.get(tool)
  if (schema === undefined) {
    schema = makeInputSchema(tool)
    inputSchemas.set(tool, schema)
  }
  return schema
}

const inputSchemas = new WeakMap<ToolDefinition, JsonSchemaObject>()

/**
 * An integer as en-US writes it ("1,048,576"), without Intl: the first `toLocaleString` of a process loads
 * ICU's number formatting, tens of milliseconds of start-up spent only to compare a description (issue 19).
 */
export const grouped = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",")

/** A JSON Schema node as the listing rewrites it. */
type JsonNode = Record<string, unknown>

/** `value` as a JSON object node, or an empty one when it is not an object. */
const nodeOf = (value: unknown): JsonNode =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as JsonNode) : {}

/** The named child nodes of `value` (a JSON Schema `properties`). */
const childrenOf = (value: unknown): Record<string, JsonNode> =>
  Object.fromEntries(Object.entries(nodeOf(value)).map(([name, child]) => [name, nodeOf(child)]))

/** The strings of `value` (a JSON Schema `required`). */
const stringsOf = (value: unknown): Array<string> =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []

const makeInputSchema = (tool: ToolDefinition): JsonSchemaObject => {
  const properties: Record<string, JsonNode> = {}
  const requiredBy: Record<string, Array<string>> = {}
  const meanings: Record<string, Map<string, Array<string>>> = {}
  for (const [action, struct] of Object.entries(tool.actions)) {
    const json = nodeOf(JSONSchema.make(struct, { target: "jsonSchema7" }))
    const resolved = nodeOf(forModel(json["$defs"] === undefined ? json : inlineRefs(json, nodeOf(json["$defs"]))))
    for (const [field, schema] of Object.entries(childrenOf(resolved["properties"]))) {
      const known = properties[field]
      if (known === undefined) properties[field] = schema
      else {
        // Bounds that differ between actions (inspect's limit) are left to the description, which states each.
        let kept = known
        for (const bound of ["minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems"]) {
          if (kept[bound] !== schema[bound]) kept = omitKey(kept, bound)
        }
        properties[field] = kept
      }
      const meaning = typeof schema["description"] === "string" ? schema["description"] : ""
      meanings[field] ??= new Map()
      const byMeaning = meanings[field]
      byMeaning.set(meaning, [...(byMeaning.get(meaning) ?? []), action])
    }
    for (const field of stringsOf(resolved["required"])) requiredBy[field] = [...(requiredBy[field] ?? []), action]
  }
  const all = Object.keys(tool.actions).length
  for (const field of Object.keys(properties)) {
    const distinct = [...meanings[field]!.entries()].filter(([meaning]) => meaning !== "")
    const text =
      distinct.length <= 1
        ? (distinct[0]?.[0] ?? "")
        : distinct.map(([meaning, actions]) => `${actions.join(", ")}: ${meaning}`).join(" ")
    const notes: Array<string> = []
    // Which actions take a field is said by its per-action description where the meaning differs, and by
    // the INVALID_INPUT of a misplaced field ("belongs to ..."); listing it on every field doubled the schema.
    const required = requiredBy[field] ?? []
    const exempt = Object.keys(tool.actions).filter((action) => !required.includes(action))
    if (required.length > 0) {
      notes.push(
        required.length === all
          ? "required"
          : exempt.length < required.length
            ? `required except for ${exempt.join(", ")}`
            : `required for ${required.join(", ")}`
      )
    }
    const { description: _description, ...base } = properties[field]!
    const described = [text, notes.length === 0 ? "" : `(${notes.join("; ")})`].filter((part) => part !== "").join(" ")
    properties[field] = described === "" ? base : { ...base, description: described }
  }
  // An item schema nested in a field (tasks' items) that repeats top-level fields exactly names them in
  // its description only (said once); a nested field that differs keeps its own schema.
  for (const schema of Object.values(properties)) {
    const items = nodeOf(schema["items"])
    if (items["properties"] === undefined) continue
    const kept: Record<string, unknown> = {}
    for (const [name, child] of Object.entries(childrenOf(items["properties"]))) {
      const top = properties[name]
      const same =
        top !== undefined &&
        JSON.stringify(omitKey(child, "description")) === JSON.stringify(omitKey(top, "description"))
      if (!same) kept[name] = child
    }
    schema["items"] = Object.keys(kept).length === 0 ? omitKey(items, "properties") : { ...items, properties: kept }
  }
  if (tool.bare !== undefined) {
    const own = stringsOf(nodeOf(JSONSchema.make(tool.actions[tool.bare]!, { target: "jsonSchema7" }))["required"])
    for (const field of Object.keys(properties)) {
      const { description, ...rest } = properties[field]!
      const plain = typeof description === "string" ? description.replace(/ ?\(required\)$/, "") : undefined
      properties[field] = plain === undefined || plain === "" ? rest : { ...rest, description: plain }
    }
    return { type: "object", properties, required: own, additionalProperties: false }
  }
  return {
    type: "object",
    properties: { action: { type: "string", enum: Object.keys(tool.actions) }, ...properties },
    required: ["action"],
    additionalProperties: false
  }
}

/** String and array bounds at or past these are not listed (the decoder still enforces them and names them). */
const LISTED_MAX_LENGTH = 80
const LISTED_MAX_ITEMS = 40

/** Effect's generated descriptions ("a string at most 80 character(s) long", "an integer"): internal, not for a model. */
const GENERATED_DESCRIPTION =
  /character\(s\)|item\(s\)|^an? (string|integer|number|array|non-negative|positive|negative|boolean)\b|^Expected /

/**
 * Rewrites a JSON Schema node for a model: no `title` (Effect puts its refinement names there), no
 * generated description, and an integer whose description does not state its bounds gets them.
 */
const forModel = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(forModel)
  if (node === null || typeof node !== "object") return node
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === "title") continue
    if (key === "description" && typeof value === "string" && GENERATED_DESCRIPTION.test(value)) continue
    out[key] =
      key === "properties"
        ? Object.fromEntries(Object.entries(value as object).map(([name, child]) => [name, forModel(child)]))
        : forModel(value)
  }
  if (Array.isArray(out["anyOf"])) {
    const flat = flattenTagged(out["anyOf"])
    if (flat !== undefined) {
      const { anyOf: _anyOf, ...rest } = out
      return { ...flat, ...rest }
    }
  }
  if (out["type"] === "object" && out["additionalProperties"] === false) delete out["additionalProperties"]
  // An id's or a hash's pattern is in its description ("the tx_… id"); the decoder checks it and says so.
  delete out["pattern"]
  if (out["minLength"] === 1) delete out["minLength"]
  // Bounds no model comes near (a 4096-character path, 1000 globs) are checked by the decoder, not listed.
  if (typeof out["maxLength"] === "number" && (out["maxLength"] as number) >= LISTED_MAX_LENGTH) delete out["maxLength"]
  if (typeof out["maxItems"] === "number" && (out["maxItems"] as number) >= LISTED_MAX_ITEMS) delete out["maxItems"]
  if (out["type"] === "integer") {
    const min = out["minimum"] as number | undefined
    const max = out["maximum"] as number | undefined
    const description = typeof out["description"] === "string" ? (out["description"] as string) : ""
    const big = (n: number) => n >= Number.MAX_SAFE_INTEGER
    const range =
      min !== undefined && max !== undefined && !big(max)
        ? `${min}-${max}`
        : min !== undefined
          ? `at least ${min}`
          : max !== undefined
            ? `at most ${max}`
            : undefined
    const states = (n: number | undefined) =>
      n === undefined || big(n) || description.includes(String(n)) || description.includes(grouped(n))
    if (range !== undefined && !(states(min) && states(max)))
      out["description"] = description === "" ? `Integer, ${range}.` : `${description} (integer, ${range})`
    // The description now states the range: the bounds are not repeated as keywords.
    delete out["minimum"]
    delete out["maximum"]
  }
  return out
}

/**
 * A union of objects told apart by a literal `type` (the edit operations) as one object: `type` is the
 * enum of every tag, each field says which tags use it and what it means for each, and only `type` is
 * required at this level (each tag's own required fields are named). The decoder still checks each
 * member exactly; the listing is what a model reads, and a flat object reads in a fraction of the size.
 */
const flattenTagged = (members: ReadonlyArray<unknown>): Record<string, unknown> | undefined => {
  const tagOf = (member: unknown): string | undefined => {
    const values = nodeOf(childrenOf(nodeOf(member)["properties"])["type"])["enum"]
    return nodeOf(member)["type"] === "object" &&
      Array.isArray(values) &&
      values.length === 1 &&
      typeof values[0] === "string"
      ? values[0]
      : undefined
  }
  const tags = members.map(tagOf)
  if (members.length < 2 || tags.some((tag) => tag === undefined)) return undefined
  const properties: Record<string, JsonNode> = {}
  const meanings: Record<string, Map<string, Array<string>>> = {}
  const usedBy: Record<string, Array<string>> = {}
  const required = new Map<string, Array<string>>()
  members.forEach((member, index) => {
    const tag = tags[index]!
    const own = stringsOf(nodeOf(member)["required"])
      .filter((field) => field !== "type")
      .join(", ")
    if (own !== "") required.set(own, [...(required.get(own) ?? []), tag])
    for (const [field, schema] of Object.entries(childrenOf(nodeOf(member)["properties"]))) {
      if (field === "type") continue
      const { description, ...shape } = schema
      properties[field] ??= shape
      usedBy[field] = [...(usedBy[field] ?? []), tag]
      meanings[field] ??= new Map()
      const byMeaning = meanings[field]
      const meaning = typeof description === "string" ? description : ""
      byMeaning.set(meaning, [...(byMeaning.get(meaning) ?? []), tag])
    }
  })
  for (const field of Object.keys(properties)) {
    const distinct = [...meanings[field]!.entries()].filter(([meaning]) => meaning !== "")
    // One meaning for every tag that has the field: the "Required per type" line already says who takes it.
    const text =
      distinct.length === 1
        ? distinct[0]![0]
        : distinct.map(([meaning, users]) => `${users.join(", ")}: ${meaning}`).join(" ")
    properties[field] = text === "" ? properties[field]! : { ...properties[field], description: text }
  }
  return {
    type: "object",
    properties: { type: { type: "string", enum: tags }, ...properties },
    required: ["type"],
    description: `Required per type: ${[...required.entries()].map(([fields, users]) => `${users.join(", ")}: ${fields}`).join("; ")}.`
  }
}

const omitKey = (node: Record<string, unknown>, key: string): Record<string, unknown> => {
  const { [key]: _omitted, ...rest } = node
  return rest
}

const inlineRefs = (node: unknown, defs: Record<string, unknown>): unknown => {
  if (Array.isArray(node)) return node.map((item) => inlineRefs(item, defs))
  if (node === null || typeof node !== "object") return node
  const { $ref, ...siblings } = nodeOf(node)
  if (typeof $ref === "string" && $ref.startsWith("#/$defs/")) {
    // The siblings of a $ref (description, minimum, maximum of a refinement) refine the definition.
    const target = nodeOf(inlineRefs(defs[$ref.slice("#/$defs/".length)], defs))
    return { ...target, ...nodeOf(inlineRefs(siblings, defs)) }
  }
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node))
    if (key !== "$defs" && key !== "$schema") out[key] = inlineRefs(value, defs)
  return out
}

/** A bounded string field: INVALID_INPUT names the field and the limit when it is longer. */
export const BoundedString = (max: number, description?: string) =>
  Schema.String.pipe(
    Schema.maxLength(max, { message: () => `must be at most ${max} characters` }),
    description === undefined ? (self) => self : Schema.annotations({ description })
  )
