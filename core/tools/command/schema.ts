/** workspace_command's input schemas: run/start fields, job ids, tail bounds. */
import * as Schema from "effect/Schema"
import { BoundedString } from "../Tool.ts"

/** tail_chars bounds and default. */
export const TAIL_MIN = 100
export const TAIL_MAX = 20_000
export const TAIL_DEFAULT = 2000
export const JobId = Schema.String.pipe(
  Schema.pattern(/^job_[A-Za-z0-9]+$/, { message: () => "must be a job_* id" })
).annotations({
  description: "The job_… id from run or start."
})
const Executable = BoundedString(4096)
  .pipe(Schema.minLength(1, { message: () => "must not be empty" }))
  .annotations({
    description: "A name on PATH or in node_modules/.bin, or a workspace path."
  })
const Args = Schema.Array(BoundedString(32_768)).pipe(Schema.maxItems(1000)).annotations({
  description: "One string per argument (no shell quoting or globbing)."
})
const Cwd = BoundedString(4096, "Working directory (default: the workspace root).")
const Timeout = Schema.Number.annotations({
  description: "Seconds before the kill (default and cap: maxCommandDurationSeconds, 600; start: 0 = none)."
})
export const TailChars = Schema.Int.pipe(Schema.between(TAIL_MIN, TAIL_MAX)).annotations({
  description: "Log tail characters (100-20000, default 2000; finished jobs only when given)."
})
const Capture = Schema.Boolean.annotations({
  description:
    "Run on a copy-on-write copy of the workspace (Linux sandbox; default false): its file changes become a planned workspace_edit transaction (data.transactionId) to review."
})
export const RunFields = {
  executable: Executable,
  args: Schema.optional(Args),
  cwd: Schema.optional(Cwd),
  timeout_seconds: Schema.optional(Timeout),
  capture: Schema.optional(Capture)
}

export type RunInput = {
  readonly action: "run" | "start"
  readonly executable: string
  readonly args?: ReadonlyArray<string> | undefined
  readonly cwd?: string | undefined
  readonly timeout_seconds?: number | undefined
  readonly capture?: boolean | undefined
}
