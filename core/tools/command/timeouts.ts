/** The timeout rules of workspace_command, pure: default and cap from the maximum command duration. */
import * as Either from "effect/Either"
import { toolError, type ToolError } from "../../protocol/errors.ts"

/** The timeout a command runs with: seconds (0 = no timer armed) and whether the request was capped. */
export interface EffectiveTimeout {
  readonly seconds: number
  readonly capped: boolean
}

/**
 * timeout_seconds defaults to `maxSeconds` and is capped by it; 0 arms no timer and is accepted only
 * with start; any other value below one second is INVALID_INPUT.
 */
export const effectiveTimeout = (
  action: "run" | "start",
  given: number | undefined,
  maxSeconds: number
): Either.Either<EffectiveTimeout, ToolError> => {
  if (given === undefined) return Either.right({ seconds: maxSeconds, capped: false })
  if (given === 0) {
    return action === "start"
      ? Either.right({ seconds: 0, capped: false })
      : Either.left(
          toolError(
            "INVALID_INPUT",
            `timeout_seconds: 0 (no timeout) is accepted only with start: a foreground run has no abort path of its own, so an unbounded one is refused. Either omit timeout_seconds (or pass a positive number, at most ${maxSeconds}) for run, or use action "start" for a background job that runs until cancel.`,
            {
              field: "timeout_seconds",
              repairs: ["omit timeout_seconds or pass a positive number for run", "use start for a background job"]
            }
          )
        )
  }
  if (!Number.isFinite(given) || given < 1) {
    return Either.left(
      toolError(
        "INVALID_INPUT",
        `timeout_seconds must be at least 1 second (or 0 with start for no timeout); got ${given}. Omit it to use the maximum command duration (${maxSeconds} s).`,
        { field: "timeout_seconds" }
      )
    )
  }
  return given > maxSeconds
    ? Either.right({ seconds: maxSeconds, capped: true })
    : Either.right({ seconds: given, capped: false })
}
