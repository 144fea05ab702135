/**
 * Helpers shared by inspect's action groups: failing, resolving a directory argument, snapshot ids,
 * listing sizes and counted nouns.
 */
import * as Effect from "effect/Effect"
import { sha256Text, stableStringify } from "../../gate/hash.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { type FileInfo, HostReads, HostInfo } from "../../services/HostFs.ts"
import { join } from "../../services/paths.ts"
import type { WalkEntry } from "../../services/Search.ts"
import { Workspace } from "../../services/Workspace.ts"
import { staleSnapshot } from "./paging.ts"

export const fail = (error: ToolError) => Effect.fail(error)

/** Resolves a directory argument: NOT_FOUND when missing, INVALID_INPUT when it is a file. */
export const directoryOf = (path: string | undefined, action: string) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const rel = yield* ws.resolve(path ?? "")
    const info = yield* ws.stat(rel)
    if (info === undefined) {
      return yield* fail(
        toolError("NOT_FOUND", `Nothing exists at "${rel}". List the parent directory to see what is there.`, {
          path: rel
        })
      )
    }
    if (info.type !== "directory") {
      return yield* fail(
        toolError(
          "INVALID_INPUT",
          `"${rel}" is a file, not a directory: ${action} takes a directory. Use read or stat for a file.`,
          { field: "path", path: rel }
        )
      )
    }
    return rel
  })

/**
 * The snapshot id of a result: SHA-256 over the query (stable JSON) and the full ordered result. The
 * result is serialised with plain JSON (its shape is fixed), which keeps a 70,000-entry listing cheap.
 */
export const snapshotOf = (query: unknown, result: ReadonlyArray<unknown> = []) =>
  snapshotOfJson(query, JSON.stringify(result))

/**
 * The snapshot id of a result whose JSON the caller already has (a listing serialises its entries once,
 * for this hash and for the artifact of the full result).
 */
export const snapshotOfJson = (query: unknown, resultJson: string) =>
  sha256Text(`${stableStringify(query)}\n${resultJson}`)

export const checkSnapshot = (action: string, given: string | undefined, current: string, what: string) =>
  given !== undefined && given !== current ? fail(staleSnapshot(action, given, current, what)) : Effect.void

export const withSizes = (entries: ReadonlyArray<WalkEntry>) =>
  Effect.gen(function* () {
    const host = yield* HostReads
    const info = yield* HostInfo
    const sized = (entry: WalkEntry, stat: FileInfo | undefined) =>
      stat === undefined ? entry : { ...entry, size: stat.size }
    // A host that can lstat a page's files in one step is asked once (a small list is 30 lstats, and an
    // effect per path cost about as much again as the system calls).
    if (host.lstatMany !== undefined) {
      const files = entries.filter((entry) => entry.type === "file")
      const stats = yield* host.lstatMany(files.map((entry) => join(info.root, entry.path)))
      let next = 0
      return entries.map((entry) => (entry.type === "file" ? sized(entry, stats[next++]) : entry))
    }
    return yield* Effect.forEach(entries, (entry) =>
      entry.type === "file"
        ? Effect.map(
            Effect.orElseSucceed(host.lstat(join(info.root, entry.path)), () => undefined),
            (stat) => sized(entry, stat)
          )
        : Effect.succeed(entry)
    )
  })

export const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`
