/**
 * A tool is a name, a description, one input Schema per action and one handler per action.
 * Input is decoded first (INVALID_INPUT before any gating), then the action's handler runs;
 * handlers of gated actions wrap their interpreter in `gated`.
 */
import type * as Effect from "effect/Effect"
import * as JSONSchema from "effect/JSONSchema"
import * as Schema from "effect/Schema"
import type { ToolResult } from "../protocol/envelope.ts"
import type { ToolError } from "../protocol/errors.ts"
import type { Browser } from "../services/Browser.ts"
import type { CurrentSettings } from "../services/CurrentSettings.ts"
import type { HostFs, HostInfoShape, HostInfo } from "../services/HostFs.ts"
import type { Processes } from "../services/Processes.ts"
import type { Search } from "../services/Search.ts"
import type { Workspace } from "../services/Workspace.ts"
import type { Settings } from "../settings/settings.ts"
import type { StateStore } from "../store/StateStore.ts"

/** The services every tool handler may use; adapters provide all of them. */
export type ToolContext = Workspace | StateStore | CurrentSettings | HostInfo | HostFs | Processes | Search | Browser

/** The action schemas of a tool: action name -> the Struct of its fields (without `action`). */
export type ActionSchemas = Record<string, Schema.Schema<any, any, never>>

/** The decoded input of one action, with its `action` tag. */
export type ActionInput<S extends ActionSchemas, K extends keyof S> = { readonly action: K } & Schema.Schema.Type<S[K]>

/** MCP-style hints; each tool computes them from the settings in force. */
export interface ToolAnnotations {
  readonly readOnlyHint: boolean
  readonly destructiveHint: boolean
  readonly openWorldHint: boolean
  readonly idempotentHint?: boolean
}

/** One public tool. */
export interface ToolDefinition<S extends ActionSchemas = ActionSchemas> {
  /** The wire name, e.g. "workspace_plan". */
  readonly name: string
  /** The prefix of operation names, e.g. "plan" for "plan.propose". */
  readonly short: string
  readonly description: string
  readonly actions: S
  /** Whether the tool is registered for these settings and host. */
  readonly enabled: (settings: Settings, host: HostInfoShape) => boolean
  /**
   * Why the tool is not registered although the settings ask for it: the host lacks a service it needs
   * (named in the TOOL_DISABLED refusal); undefined when the host has everything.
   */
  readonly unavailable?: (settings: Settings, host: HostInfoShape) => string | undefined
  readonly annotations: (settings: Settings) => ToolAnnotations
  readonly handlers: {
    readonly [K in keyof S]: (input: ActionInput<S, K>) => Effect.Effect<ToolResult, ToolError, ToolContext>
  }
}

/** Identity with inference: `defineTool({...})`. */
export const defineTool = <S extends ActionSchemas>(tool: ToolDefinition<S>): ToolDefinition<S> => tool

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
 * clients expect `type: "object"` at the root.
 */
export const toolInputSchema = (tool: ToolDefinition): JsonSchemaObject => {
  const properties: Record<string, any> = {}
  const usedBy: Record<string, Array<string>> = {}
  const requiredBy: Record<string, Array<string>> = {}
  for (const [action, struct] of Object.entries(tool.actions)) {
    const json = JSONSchema.make(struct, { target: "jsonSchema7" }) as any
    const resolved = json.$defs === undefined ? json : inlineRefs(json, json.$defs)
    for (const [field, schema] of Object.entries<any>(resolved.properties ?? {})) {
      if (properties[field] === undefined) properties[field] = schema
      ;(usedBy[field] ??= []).push(action)
    }
    for (const field of (resolved.required ?? []) as Array<string>) (requiredBy[field] ??= []).push(action)
  }
  for (const field of Object.keys(properties)) {
    const notes = [`actions: ${usedBy[field]!.join(", ")}`]
    if (requiredBy[field] !== undefined) notes.push(`required for: ${requiredBy[field]!.join(", ")}`)
    const base = properties[field] as { description?: string }
    properties[field] = { ...base, description: `${base.description === undefined ? "" : `${base.description} `}(${notes.join("; ")})` }
  }
  return {
    type: "object",
    properties: { action: { type: "string", enum: Object.keys(tool.actions), description: "The action to perform." }, ...properties },
    required: ["action"],
    additionalProperties: false
  }
}

const inlineRefs = (node: any, defs: Record<string, unknown>): any => {
  if (Array.isArray(node)) return node.map((item) => inlineRefs(item, defs))
  if (node === null || typeof node !== "object") return node
  if (typeof node.$ref === "string" && node.$ref.startsWith("#/$defs/")) {
    return inlineRefs(defs[node.$ref.slice("#/$defs/".length)], defs)
  }
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) if (key !== "$defs" && key !== "$schema") out[key] = inlineRefs(value, defs)
  return out
}

/** A bounded string field: INVALID_INPUT names the field and the limit when it is longer. */
export const BoundedString = (max: number, description?: string) =>
  Schema.String.pipe(
    Schema.maxLength(max, { message: () => `must be at most ${max} characters` }),
    description === undefined ? (self) => self : Schema.annotations({ description })
  )
