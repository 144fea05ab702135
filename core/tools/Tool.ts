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
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { Prompt } from "../gate/prompt.ts"
import type { DestructiveReason, RecordKind, ResumeCall } from "../gate/records.ts"
import type { Artifact, ToolResult } from "../protocol/envelope.ts"
import type { ToolError } from "../protocol/errors.ts"
import type { WorkspaceKey } from "../gate/key.ts"
import type { PlanRecords } from "../gate/planRecords.ts"
import type { Browser, BrowserReads, BrowserSessions } from "../services/Browser.ts"
import type { CurrentSettings } from "../services/CurrentSettings.ts"
import type { NetState } from "../net/NetState.ts"
import type { Capability, HostFs, HostInfo, HostInfoShape, HostReads } from "../services/HostFs.ts"
import type { LanguageServers } from "../services/LanguageServers.ts"
import type { JobControl } from "../services/JobControl.ts"
import type { ProcessReads, Processes } from "../services/Processes.ts"
import type { RegisteredTools } from "../services/RegisteredTools.ts"
import type { RunControl, RunWorkers, WorkerReads } from "../services/RunWorkers.ts"
import type { Search } from "../services/Search.ts"
import type { VcsReads } from "../services/VcsReads.ts"
import type { Workspace, WorkspaceWrites } from "../services/Workspace.ts"
import type { Settings } from "../settings/settings.ts"
import type { OwnStore, StateReads, StateStore } from "../store/StateStore.ts"
import { defined } from "../text/defined.ts"

/**
 * The services of a gated action's interpreter (and of the kernel's own steps: start-up, `record`, `view`,
 * the changes sources); adapters provide all of them (a missing one as a layer that refuses). `OwnStore` is
 * provided by the registry per call, confined to the calling tool's own storage.
 */
export type ToolContext =
  | Workspace
  | WorkspaceWrites
  | StateStore
  | StateReads
  | OwnStore
  | PlanRecords
  | CurrentSettings
  | HostInfo
  | HostFs
  | HostReads
  | Processes
  | ProcessReads
  | JobControl
  | VcsReads
  | Search
  | RegisteredTools
  | WorkspaceKey
  | HttpClient
  | NetState
  | Browser
  | BrowserReads
  | BrowserSessions
  | RunWorkers
  | WorkerReads
  | RunControl
  | LanguageServers

/** What the runtime provides: every service of ToolContext but OwnStore, which the registry adds per call. */
export type KernelContext = Exclude<ToolContext, OwnStore>

/**
 * The context of a handler that must not change anything: an ungated action's `run` and a gated action's
 * `load` (its `plan` is pure). It lacks every service that can change something: `WorkspaceWrites` (the
 * workspace's writes), the whole `StateStore` (it has `StateReads`, and `OwnStore`: the tool's own records),
 * the whole `HostFs` (it has `HostReads`), `Processes` (it has `ProcessReads`, and `VcsReads` for git and
 * gh reads), `Browser` (it has `BrowserReads`), `RunWorkers` (it has `WorkerReads`) and `HttpClient` (no
 * request at all). A handler that writes from `run` or `load` through any of them does not type-check
 * (spec/kernel/read-only-context.test.ts). What it may still do that acts is a kernel-owned write with its
 * own narrow service (`OwnStore`, `PlanRecords`, `JobControl`, `BrowserSessions`, `RunControl`, the index
 * copy of `VcsReads`), listed in docs/DEVELOPING.md.
 */
export type ReadContext = Exclude<
  ToolContext,
  WorkspaceWrites | StateStore | HostFs | Processes | Browser | RunWorkers | HttpClient
>

/**
 * Reads alone, not even a tool's own store nor any other kernel-owned write: the `changes` sources (run
 * inside another tool's call).
 */
export type ReadsOnlyContext = Exclude<ReadContext, OwnStore | PlanRecords | JobControl | BrowserSessions | RunControl>

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
  ...defined({ idempotentHint: tool.hints.idempotentHint })
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

/** The key of one list in the changes listing's `data`: the owning tool names it ("transactions", "jobs"). */
export type ChangeKey = string

/**
 * One contributor to the changes listing: its entries, newest first, in the reference's shape. The tool that
 * owns the list declares everything the listing does with it, so inspect names no other tool's list.
 */
export interface ChangeSource {
  readonly key: ChangeKey
  /**
   * Its place in `data`, lower first; the reference's order is transactions 10, runs 20, jobs 30, taskBoards 40,
   * researchProjects 50, vcs 60. The kernel's approvals and plans follow every source.
   */
  readonly rank: number
  /** The retention facts this list contributes (from its newest entries); none when absent. */
  readonly facts?: (list: ReadonlyArray<unknown>) => ReadonlyArray<string>
  /**
   * A list that is never omitted when summarizing and, when the listing is trimmed to fit, keeps at least this
   * many entries (jobs: the one route back to a job id after compression). Absent: omitted when summarizing.
   */
  readonly keepAtLeast?: number
  /** Read by `workspace_inspect changes`, an ungated action: it reads only. */
  readonly list: Effect.Effect<ReadonlyArray<unknown>, ToolError, ReadsOnlyContext>
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
  /**
   * Store paths (relative to `.agentic/`) of another tool's storage this tool also keeps records in, through
   * OwnStore: workspace_research's `deep` starts and follows a workspace_agent run (`runs`).
   */
  readonly alsoWrites?: ReadonlyArray<string>
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

/** The half of a tool that `lazyTool` loads on first use: its action Schemas and their handlers. */
export interface ToolParts<S extends ActionSchemas = ActionSchemas> {
  readonly actions: S
  readonly handlers: ToolDefinition<S>["handlers"]
}

/** A lazy tool's loading: its loader, and its parts once loaded. */
interface LazyState {
  readonly load: () => Promise<unknown>
  loaded: boolean
}

const lazyStates = new WeakMap<ToolDefinition, LazyState>()

/**
 * A tool whose action Schemas and handlers live in a module loaded on first use (`load`, a dynamic import):
 * registering it, its start-up steps, storage, `changes` sources and capabilities need only the rest, so a
 * process that never calls or lists it never evaluates that module (building its Schemas is most of a
 * tool's load; a one-shot CLI `call` names one tool). Its `actions` and `handlers` throw until `loadTools`
 * has loaded them: the registry loads a tool before its first call, and startHost every tool before a
 * listing unless the start says no listing follows (`warmListing: false`).
 */
export const lazyTool = <S extends ActionSchemas>(
  light: Omit<ToolDefinition<S>, "actions" | "handlers">,
  load: () => Promise<ToolParts<S>>
): ToolDefinition<S> => {
  let parts: ToolParts<S> | undefined
  let loading: Promise<unknown> | undefined
  const loaded = (): ToolParts<S> => {
    if (parts === undefined) throw new Error(`${light.name} is used before its actions were loaded (loadTools)`)
    return parts
  }
  const tool: ToolDefinition<S> = {
    ...light,
    get actions() {
      return loaded().actions
    },
    get handlers() {
      return loaded().handlers
    }
  }
  const state: LazyState = {
    load: () =>
      (loading ??= load().then(
        (value) => {
          parts = value
          state.loaded = true
        },
        (error: unknown) => {
          // A failed load is tried again by the next call rather than remembered.
          loading = undefined
          throw error
        }
      )),
    loaded: false
  }
  lazyStates.set(tool as unknown as ToolDefinition, state)
  return tool
}

/** An effect whose code is in a module loaded when it first runs: a lazy tool's start-up step or `changes` list. */
export const deferred = <A, E, R>(load: () => Promise<Effect.Effect<A, E, R>>): Effect.Effect<A, E, R> =>
  Effect.flatten(Effect.promise(load))

/** Whether a tool's actions and handlers are there to read (every tool not made by `lazyTool`, and a loaded lazy one). */
export const toolLoaded = (tool: ToolDefinition): boolean => lazyStates.get(tool)?.loaded ?? true

/** Loads the actions and handlers of every lazy tool among `tools` that has not loaded them yet. */
export const loadTools = async (tools: ReadonlyArray<ToolDefinition>): Promise<void> => {
  await Promise.all(tools.flatMap((tool) => (toolLoaded(tool) ? [] : [lazyStates.get(tool)!.load()])))
}

/** A tool's actions and handlers, loaded unless they are there already (a failed load is a defect of the effect). */
export const toolReady = (tool: ToolDefinition): Effect.Effect<void> =>
  toolLoaded(tool) ? Effect.void : Effect.promise(() => loadTools([tool]))

/** The gate kind an action declares, or undefined for an ungated one. */
export const gateOf = (tool: ToolDefinition, action: string): GateKind | undefined => {
  const def = tool.handlers[action]
  return def === undefined || def.gate === "none" ? undefined : def.gate
}

export { grouped, type JsonSchemaObject, toolInputSchema } from "./inputSchema.ts"

/** A bounded string field: INVALID_INPUT names the field and the limit when it is longer. */
export const BoundedString = (max: number, description?: string) =>
  Schema.String.pipe(
    Schema.maxLength(max, { message: () => `must be at most ${max} characters` }),
    description === undefined ? (self) => self : Schema.annotations({ description })
  )
