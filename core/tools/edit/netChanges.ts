/** The planner's last step: the net change of each path its virtual tree wrote, compared with the before-state. */
import type { BeforeState, PlannedFile } from "./planner.ts"
import { sameBytes } from "./text.ts"

/** A path's state in the planner's virtual tree. */
export type Virtual =
  | { readonly t: "file"; readonly bytes: Uint8Array; readonly mode?: number | undefined }
  | { readonly t: "dir" }
  | { readonly t: "none" }
  | { readonly t: "other" }

type FileBefore = Extract<NonNullable<ReturnType<BeforeState["get"]>>, { readonly type: "file" }>

/** A file the transaction removes (deleted, or replaced by a directory). */
const deletion = (path: string, entry: FileBefore): PlannedFile => ({
  path,
  change: "delete",
  before: { type: "file", bytes: entry.bytes, mode: entry.mode },
  beforeSha256: entry.sha256,
  after: { type: "none" }
})

/** The net change of every path the transaction wrote, in the order first written; the directories it creates. */
export const netChanges = (state: ReadonlyMap<string, Virtual>, before: BeforeState) => {
  const files: Array<PlannedFile> = []
  const createdDirectories: Array<string> = []
  for (const [path, after] of state) {
    const entry = before.get(path)
    const wasFile = entry?.type === "file"
    if (after.t === "dir") {
      if (entry?.type !== "directory") createdDirectories.push(path)
      if (wasFile) files.push(deletion(path, entry))
      continue
    }
    if (after.t === "file") {
      if (wasFile) {
        if (sameBytes(entry.bytes, after.bytes) && (after.mode === undefined || after.mode === entry.mode)) continue
        files.push({
          path,
          change: "modify",
          before: { type: "file", bytes: entry.bytes, mode: entry.mode },
          beforeSha256: entry.sha256,
          after: { type: "file", bytes: after.bytes, mode: after.mode ?? entry.mode }
        })
      } else
        files.push({
          path,
          change: "create",
          before: { type: "none" },
          beforeSha256: null,
          after: { type: "file", bytes: after.bytes, mode: after.mode }
        })
      continue
    }
    if (after.t === "none" && wasFile) {
      files.push(deletion(path, entry))
    }
  }
  return { files, createdDirectories }
}
