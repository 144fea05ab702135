/** workspace_command's action Schemas and handlers, loaded on the tool's first call or listing (tool.ts). */
import * as Schema from "effect/Schema"
import type { ToolParts } from "../Tool.ts"
import { runAction } from "./launch.ts"
import { JobId, RunFields, TailChars } from "./schema.ts"
import { cancelAction, statusAction } from "./status.ts"

const actions = {
  run: Schema.Struct(RunFields),
  start: Schema.Struct(RunFields),
  status: Schema.Struct({ job_id: JobId, tail_chars: Schema.optional(TailChars) }),
  cancel: Schema.Struct({ job_id: JobId })
}

export const parts: ToolParts<typeof actions> = {
  actions,
  handlers: {
    run: runAction,
    start: runAction,
    status: { gate: "none", run: (input) => statusAction(input) },
    cancel: { gate: "none", run: (input) => cancelAction(input) }
  }
}
