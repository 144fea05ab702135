/** The `agentic-workspace/v1` envelope every public tool returns, and the one way to build it. */
import * as Schema from "effect/Schema"

/** The protocol tag carried by every envelope. */
export const PROTOCOL = "agentic-workspace/v1" as const

/** How much a transcript compressor should keep of a result. */
export const Importance = Schema.Literal("low", "normal", "high", "critical")
export type Importance = typeof Importance.Type

/** Retention hints: facts to keep, data fields to drop when the transcript is compacted. */
export interface Retention {
  readonly importance: Importance
  readonly facts?: ReadonlyArray<string>
  readonly omit_when_summarizing?: ReadonlyArray<string>
}

/** A file written beside a result (a full listing, a diff, a log), named by workspace-relative path. */
export interface Artifact {
  readonly kind: string
  readonly path: string
  readonly sha256: string
  readonly bytes: number
  readonly description?: string
}

/** The Schema of an artifact, as durable records keep them. */
export const ArtifactSchema: Schema.Schema<Artifact> = Schema.Struct({
  kind: Schema.String,
  path: Schema.String,
  sha256: Schema.String,
  bytes: Schema.Number,
  description: Schema.optional(Schema.String)
})

/** The error part of an `ok: false` envelope. */
export interface EnvelopeError {
  readonly code: string
  readonly message: string
  readonly details?: Record<string, unknown>
}

/** The envelope, exactly as the reference gives it. */
export interface Envelope {
  readonly protocol: typeof PROTOCOL
  readonly ok: boolean
  readonly operation: string
  readonly summary: string
  readonly retention: Retention
  readonly artifacts?: ReadonlyArray<Artifact>
  readonly data?: unknown
  readonly error?: EnvelopeError
}

/** What a tool action hands back on success; the registry wraps it into an envelope. */
export interface ToolResult {
  readonly summary: string
  readonly data?: unknown
  readonly retention?: Retention
  readonly artifacts?: ReadonlyArray<Artifact>
}

/** A successful envelope for `operation` (e.g. "edit.apply"). */
export const success = (operation: string, result: ToolResult): Envelope => ({
  protocol: PROTOCOL,
  ok: true,
  operation,
  summary: result.summary,
  retention: result.retention ?? { importance: "normal" },
  ...(result.artifacts !== undefined && result.artifacts.length > 0 ? { artifacts: result.artifacts } : {}),
  ...(result.data !== undefined ? { data: result.data } : {})
})

/** A failed envelope; the summary repeats the message so a model that reads only the summary sees the repair. */
export const failure = (
  operation: string,
  error: EnvelopeError,
  extra?: { readonly data?: unknown; readonly artifacts?: ReadonlyArray<Artifact> }
): Envelope => ({
  protocol: PROTOCOL,
  ok: false,
  operation,
  summary: `${error.code}: ${error.message}`,
  retention: { importance: "high", facts: [`${operation} failed: ${error.code}`] },
  ...(extra?.artifacts !== undefined && extra.artifacts.length > 0 ? { artifacts: extra.artifacts } : {}),
  ...(extra?.data !== undefined ? { data: extra.data } : {}),
  error:
    error.details === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, details: error.details }
})

/**
 * The envelope as a JSON Schema (MCP's `outputSchema`): the top-level fields a client acts on, `data`
 * an open object, so every result validates without the schema growing with each tool (tools/list is
 * read by the model too). `protocol`, `retention` and `artifacts` are in envelopes as well; extra fields are allowed.
 */
export const ENVELOPE_JSON_SCHEMA = {
  type: "object",
  properties: {
    ok: { type: "boolean" },
    operation: { type: "string" },
    summary: { type: "string" },
    data: { type: "object" },
    error: { type: "object" }
  }
} as const
