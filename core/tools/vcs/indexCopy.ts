/**
 * A private copy of the git index for one run of git that would write it (`write-tree` rewrites the index's
 * cache-tree; `add -A` rewrites entries): GIT_INDEX_FILE points at a copy under `.agentic/<area>/scratch/`,
 * so the real index stays byte-equal. Shared by workspace_vcs (the tree of the index) and the Workspaces
 * integration (the tree of the working copy).
 *
 * @example
 *   const tree = yield* withIndexCopy(git, "vcs", "fail", (env) => git.must(["write-tree"], { env }))
 */
import * as Effect from "effect/Effect"
import { newId } from "../../gate/hash.ts"
import { toolError } from "../../protocol/errors.ts"
import { HostFs } from "../../services/HostFs.ts"
import { join } from "../../services/paths.ts"
import { StateStore } from "../../store/StateStore.ts"
import type { Git } from "./run.ts"

/** What the run of git gets: the environment naming the copy, and the real index file's mtime (seconds) when there is one. */
export interface IndexCopy {
  readonly env: { readonly GIT_INDEX_FILE: string }
  readonly indexMtimeSec: number | undefined
}

/**
 * Runs `use` with a copy of the repository's index (none when the repository has no index yet: git then reads
 * an empty one) and removes the copy afterwards. An index that exists but cannot be read fails IO_ERROR
 * (`unreadable: "fail"`) or is taken as no index (`"missing"`).
 */
export const withIndexCopy = <A, E, R>(
  git: Git,
  area: string,
  unreadable: "fail" | "missing",
  use: (copy: IndexCopy) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function* () {
    const host = yield* HostFs
    const store = yield* StateStore
    const indexPath = (yield* git.must(["rev-parse", "--git-path", "index"])).trim()
    const indexAbs = indexPath.startsWith("/") ? indexPath : join(git.cwdAbs, indexPath)
    const bytes = yield* host.readFile(indexAbs).pipe(
      Effect.map((value): Uint8Array | undefined => value),
      Effect.catchAll((error) =>
        error.reason === "NotFound" || unreadable === "missing"
          ? Effect.succeed(undefined)
          : Effect.fail(
              toolError("IO_ERROR", `The git index could not be read (${error.reason}).`, { path: indexPath })
            )
      )
    )
    // Read before the copy: git's racy-git rule compares entries with the index file's own mtime.
    const indexStat =
      bytes === undefined
        ? undefined
        : yield* host.stat(indexAbs).pipe(Effect.catchAll(() => Effect.succeed(undefined)))
    const scratch = `${area}/scratch/${yield* newId("index")}`
    // Without an index the copy's folder is made by a placeholder, so git can write the copy there.
    if (bytes !== undefined) yield* store.writeBytes(scratch, bytes)
    else yield* store.writeText(`${scratch}.keep`, "")
    return yield* use({
      env: { GIT_INDEX_FILE: store.abs(scratch) },
      indexMtimeSec: indexStat === undefined ? undefined : Math.floor(indexStat.mtimeMs / 1000)
    }).pipe(Effect.ensuring(Effect.all([store.remove(scratch), store.remove(`${scratch}.keep`)]).pipe(Effect.ignore)))
  })
