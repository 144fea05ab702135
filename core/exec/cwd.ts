/** The working directory of a model-started process, shared by workspace_command and workspace_vcs. */
import * as Effect from "effect/Effect"
import { toolError } from "../protocol/errors.ts"
import { Workspace } from "../services/Workspace.ts"

/** The workspace-relative directory of a model-given cwd, refusing escapes and non-directories. */
export const resolveCwd = (cwd: string | undefined) =>
  Effect.gen(function* () {
    const workspace = yield* Workspace
    const rel = yield* workspace.resolve(cwd ?? "", "cwd")
    const info = yield* workspace.stat(rel === "" ? "." : rel)
    if (info?.type !== "directory") {
      return yield* Effect.fail(
        toolError(
          "INVALID_INPUT",
          `cwd "${cwd}" is not a directory in the workspace; give an existing folder relative to the workspace root.`,
          { field: "cwd" }
        )
      )
    }
    return rel
  })
