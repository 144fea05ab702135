/**
 * The pure planner of workspace_edit: operations (paths already confined) plus the before-state they
 * read -> the planned transaction: the net change of every file, the directories it creates, the
 * before-state of every path it touches (bound into the approval hash), and why it is destructive.
 * Operations apply in order over a virtual tree (virtualTree.ts), so a later operation sees what an earlier
 * one did; each kind is planned by its own function (planOperations.ts, planRename.ts).
 */
import * as Either from "effect/Either"
import type { DestructiveReason } from "../../gate/records.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { ancestors } from "../../services/paths.ts"
import { netChanges } from "./netChanges.ts"
import { planCreate, planDelete, planMkdir, planReplace, planRewrite, planSplice } from "./planOperations.ts"
import { planRename } from "./planRename.ts"
import type { StoredOperation as Operation } from "./schema.ts"
import { fail, VirtualTree } from "./virtualTree.ts"

export { gutterProbe } from "./planOperations.ts"

/** What was at a path before the transaction. */
export type BeforeEntry =
  | { readonly type: "file"; readonly bytes: Uint8Array; readonly sha256: string; readonly mode: number }
  | { readonly type: "directory" }
  | { readonly type: "missing" }
  | { readonly type: "symlink" | "other" }

/** The before-state the planner reads: every path an operation names, and every ancestor of it. */
export type BeforeState = ReadonlyMap<string, BeforeEntry>

/** An operation whose path fields are confined workspace-relative paths. */
export type ResolvedOperation = Operation

/** A file's state on one side of the transaction. */
export type FileSide =
  | { readonly type: "file"; readonly bytes: Uint8Array; readonly mode?: number | undefined }
  | { readonly type: "none" }

/** The net change of one file. */
export interface PlannedFile {
  readonly path: string
  readonly change: "create" | "modify" | "delete"
  readonly before: FileSide
  readonly beforeSha256: string | null
  readonly after: FileSide
}

/** A directory a mkdir operation names, and whether it was there before. */
export interface PlannedDirectory {
  readonly path: string
  readonly existedBefore: boolean
}

/** The before-state of one touched path as the approval hash binds it: a file's SHA-256, "directory", "missing" or "other". */
export interface TouchedPath {
  readonly path: string
  readonly before: string
}

/** The planned transaction (before bytes are kept for the diff and the journal; they are never hashed raw). */
export interface PlannedTransaction {
  readonly files: ReadonlyArray<PlannedFile>
  readonly directories: ReadonlyArray<PlannedDirectory>
  /** Every directory level the commit creates (listed and implicit parents), top-down. */
  readonly createdDirectories: ReadonlyArray<string>
  readonly touched: ReadonlyArray<TouchedPath>
  readonly destructive: ReadonlyArray<DestructiveReason>
}

/** The paths an operation names, in order (for loading the before-state). */
export const operationPaths = (op: Operation): ReadonlyArray<string> =>
  op.type === "copy" || op.type === "move"
    ? [op.from, op.to]
    : op.type === "rename_symbol"
      ? [
          ...new Set([
            ...op.files.map((file) => file.path),
            ...op.renames.flatMap((rename) => [rename.from, rename.to])
          ])
        ]
      : [op.path]

const describeBefore = (entry: BeforeEntry | undefined): string =>
  entry === undefined || entry.type === "missing"
    ? "missing"
    : entry.type === "file"
      ? entry.sha256
      : entry.type === "directory"
        ? "directory"
        : "other"

/** Applies operations[index] to the tree, or returns why it cannot apply: one planning function per kind. */
const planOperation = (tree: VirtualTree, op: Operation, index: number): ToolError | undefined => {
  switch (op.type) {
    case "create":
      return planCreate(tree, op, index)
    case "rewrite":
      return planRewrite(tree, op, index)
    case "replace":
      return planReplace(tree, op, index)
    case "splice":
      return planSplice(tree, op, index)
    case "copy":
    case "move":
      return tree.transfer(op, index, op.type, op.from, op.to, op.overwrite === true)
    case "rename_symbol":
      return planRename(op, index, {
        changed: (path) => tree.state.has(path),
        operationPaths,
        textOf: (op, index, path) => tree.textOf(op, index, path),
        fail,
        putFile: (index, path, bytes, mode) => tree.putFile(index, path, bytes, mode),
        transfer: (op, index, type, from, to, overwrite) => tree.transfer(op, index, type, from, to, overwrite)
      })
    case "delete":
      return planDelete(tree, op, index)
    case "mkdir":
      return planMkdir(tree, op, index)
  }
}

/** Plans a transaction; the first operation that cannot apply fails it with a code and a repair. */
export const planTransaction = (
  operations: ReadonlyArray<ResolvedOperation>,
  before: BeforeState
): Either.Either<PlannedTransaction, ToolError> => {
  const tree = new VirtualTree(before)
  for (let index = 0; index < operations.length; index++) {
    const op = operations[index]!
    for (const path of operationPaths(op)) {
      tree.touched.add(path)
      for (const parent of ancestors(path)) tree.touched.add(parent)
    }
    const error = planOperation(tree, op, index)
    if (error !== undefined) return Either.left(error)
  }
  return assemble(tree)
}

/** The planned transaction of a tree every operation applied to, or the refusal of one that changes nothing. */
const assemble = (tree: VirtualTree): Either.Either<PlannedTransaction, ToolError> => {
  const { before, state, listed, touched, destructive } = tree
  const { files, createdDirectories } = netChanges(state, before)
  createdDirectories.sort((a, b) => a.split("/").length - b.split("/").length)
  const directories = [...listed.values()]
  if (files.length === 0 && createdDirectories.length === 0) {
    if (directories.length > 0) {
      return Either.left(
        toolError(
          "INVALID_INPUT",
          `Every requested directory already exists (${directories.map((d) => d.path).join(", ")}) and nothing else changes: nothing is missing, so this call does not need to be re-issued.`,
          { directories: directories.map((d) => d.path) }
        )
      )
    }
    return Either.left(
      toolError(
        "INVALID_INPUT",
        "The transaction changes nothing: every operation leaves the files as they are. Check the operations against the current content (workspace_inspect read).",
        {}
      )
    )
  }
  return Either.right({
    files,
    directories,
    createdDirectories,
    touched: [...touched].sort().map((path) => ({ path, before: describeBefore(before.get(path)) })),
    destructive
  })
}
