/** Error codes of the reference and the one error type a tool action fails with. */
import * as Schema from "effect/Schema"

/** Every code an `ok: false` envelope can carry. */
export const ErrorCode = Schema.Literal(
  "INVALID_INPUT",
  "APPROVAL_REQUIRED",
  "APPROVAL_DENIED",
  "PROTECTED_PATH",
  "PATH_ESCAPE",
  "TRANSACTION_STATE",
  "NOT_FOUND",
  "EDIT_CONFLICT",
  "EXECUTABLE_DENIED",
  "SANDBOX_UNAVAILABLE",
  "AGENT_DISABLED",
  "TOOL_DISABLED",
  "SNAPSHOT_STALE",
  "STALE_REF",
  "EGRESS_DENIED",
  "BINARY_FILE",
  "TIMEOUT",
  "STORE_FULL",
  "FILE_TOO_LARGE",
  "IO_ERROR",
  "RUNTIME_UNAVAILABLE",
  "INTERNAL_ERROR",
  "EGRESS_DENIED",
  "PROVIDER_FAILED",
  "RESPONSE_TOO_LARGE",
  "VCS_FAILED",
  "NOT_A_REPOSITORY",
  "MERGE_CONFLICT",
  "NON_FAST_FORWARD",
  "MODEL_UNAVAILABLE",
  "CONTEXT_STALE",
  "CAPABILITY_MISSING",
  "LANGUAGE_SERVER_FAILED"
)
export type ErrorCode = typeof ErrorCode.Type

/**
 * A failure the model can repair: it becomes an `ok: false` envelope with this code and message.
 * Invariants broken inside the core are defects (`Effect.die`), never a ToolError.
 */
export class ToolError extends Schema.TaggedError<ToolError>()("ToolError", {
  code: ErrorCode,
  message: Schema.String,
  details: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
}) {}

/** Shorthand constructor: `fail("NOT_FOUND", "No plan plan_x. List plans with ...")`. */
export const toolError = (code: ErrorCode, message: string, details?: Record<string, unknown>): ToolError =>
  new ToolError(details === undefined ? { code, message } : { code, message, details })
