/**
 * A private copy of the git index for one run of git that would write it (`write-tree` rewrites the index's
 * cache-tree; `add -A` rewrites entries): GIT_INDEX_FILE points at a copy under `.agentic/<area>/scratch/`,
 * so the real index stays byte-equal. Shared by workspace_vcs (the tree of the index) and the Workspaces
 * integration (the tree of the working copy). This is how a load writes a tree without a writing service:
 * the copy is the tool's own storage (OwnStore) and `add`/`update-index`/`write-tree` reach git only
 * through the copy (VcsReads checks that GIT_INDEX_FILE names one).
 *
 * @example
 *   const tree = yield* withIndexCopy(git, "vcs", "fail", (copy) => copy.must(["write-tree"]))
 */
import * as Effect from "effect/Effect"
import { newId } from "../gate/hash.ts"
import { toolError, type ToolError } from "../protocol/errors.ts"
import { HostReads } from "../services/HostFs.ts"
import { join } from "../services/paths.ts"
import type { ExecResult } from "../services/Processes.ts"
import { type GitReadArgs, INDEX_COPY_SUBCOMMANDS, type IndexCopyArgs, type VcsReads } from "../services/VcsReads.ts"
import { OwnStore } from "../store/StateStore.ts"
import { type Git, mustSucceed, type RunOptions } from "./git.ts"

/** What the run of git gets: the environment naming the copy, git on the copy, and the real index file's mtime (seconds) when there is one. */
export interface IndexCopy {
  readonly env: { readonly GIT_INDEX_FILE: string }
  /** `git <args>` on the copy (a read, or add/update-index/write-tree, which write only the copy and objects). */
  readonly exec: (
    args: GitReadArgs | IndexCopyArgs,
    options?: Omit<RunOptions, "env">
  ) => Effect.Effect<ExecResult, ToolError, VcsReads>
  /** The same, failing with the classified error on a nonzero exit; returns stdout. */
  readonly must: (
    args: GitReadArgs | IndexCopyArgs,
    options?: Omit<RunOptions, "env">
  ) => Effect.Effect<string, ToolError, VcsReads>
  readonly indexMtimeSec: number | undefined
}

const isIndexCopyArgs = (args: GitReadArgs | IndexCopyArgs): args is IndexCopyArgs =>
  (INDEX_COPY_SUBCOMMANDS as ReadonlyArray<string>).includes(args[0])

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
    const host = yield* HostReads
    const store = yield* OwnStore
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
    const env = { GIT_INDEX_FILE: store.abs(scratch) }
    const exec = (args: GitReadArgs | IndexCopyArgs, options?: Omit<RunOptions, "env">) =>
      isIndexCopyArgs(args) ? git.execOnCopy(args, env, options) : git.exec(args, { ...options, env })
    return yield* use({
      env,
      exec,
      must: (args, options) => Effect.flatMap(exec(args, options), mustSucceed(args)),
      indexMtimeSec: indexStat === undefined ? undefined : Math.floor(indexStat.mtimeMs / 1000)
    }).pipe(Effect.ensuring(Effect.all([store.remove(scratch), store.remove(`${scratch}.keep`)]).pipe(Effect.ignore)))
  })
