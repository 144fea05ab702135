/**
 * The virtual tree workspace_edit's planner applies operations to, in order, so a later operation sees what
 * an earlier one did: the state of every path it changed, which operation made a path a file or a directory
 * (its claims), the directories mkdir listed, the paths it touched and why the transaction is destructive.
 * Mutable while one transaction is planned; never shared.
 */
import type { DestructiveReason } from "../../gate/records.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { ancestors } from "../../services/paths.ts"
import { gutterRun } from "../../text/gutter.ts"
import type { Virtual } from "./netChanges.ts"
import type { BeforeState, PlannedDirectory } from "./planner.ts"
import type { StoredOperation as Operation } from "./schema.ts"
import { decodeText } from "./text.ts"

/** A text file as an edit reads it: its text without the BOM, whether it had one, and its mode. */
export interface TextFile {
  /** The bytes the text was decoded from. */
  bytes: Uint8Array
  text: string
  bom: boolean
  mode?: number | undefined
}

const label = (op: Operation, index: number) =>
  `operations[${index}] (${op.type} ${op.type === "copy" || op.type === "move" ? `${op.from} -> ${op.to}` : op.type === "rename_symbol" ? `${op.old_name} -> ${op.new_name} at ${op.path}:${op.line}:${op.column}` : op.path})`

/** A refusal of operations[index]: the code, the operation named, and the message and details. */
export const fail = (
  code: Parameters<typeof toolError>[0],
  op: Operation,
  index: number,
  message: string,
  extra: Record<string, unknown> = {}
) => toolError(code, `${label(op, index)}: ${message}`, { operation: index, type: op.type, ...extra })

/** The refusal of text that still carries a workspace_inspect read gutter (unless allow_line_numbers). */
export const gutterCheck = (
  op: Operation & { readonly allow_line_numbers?: boolean | undefined },
  index: number,
  field: string,
  text: string
) => {
  if (op.allow_line_numbers === true) return undefined
  const run = gutterRun(text)
  if (run === undefined) return undefined
  return fail(
    "INVALID_INPUT",
    op,
    index,
    `${field} still carries the "N | " line-number gutter of a workspace_inspect read (lines ${run.firstLine}-${run.firstLine + 1} start "${run.numbers[0]} | ", "${run.numbers[1]} | "): writing it would corrupt the file${field === "search" ? " and a search that carries it can never match" : ""}. Remove the gutter, or set allow_line_numbers: true on this operation if the numbers are really part of the text.`,
    { field, path: "path" in op ? op.path : undefined }
  )
}

/** The virtual tree of one transaction being planned. */
export class VirtualTree {
  /** What operations made each path, in the order the paths were first changed (a Map keeps that order). */
  readonly state = new Map<string, Virtual>()
  readonly claims = new Map<string, { readonly index: number; readonly as: "file" | "directory" }>()
  readonly listed = new Map<string, PlannedDirectory>()
  readonly destructive: Array<DestructiveReason> = []
  readonly touched = new Set<string>()

  constructor(readonly before: BeforeState) {}

  /** A path's current state: what an earlier operation made it, else what it was before. */
  get(path: string): Virtual {
    const current = this.state.get(path)
    if (current !== undefined) return current
    const entry = this.before.get(path)
    if (entry === undefined || entry.type === "missing") return { t: "none" }
    if (entry.type === "file") return { t: "file", bytes: entry.bytes, mode: entry.mode }
    if (entry.type === "directory") return { t: "dir" }
    return { t: "other" }
  }

  set(path: string, value: Virtual) {
    this.state.set(path, value)
  }

  existedAsFile(path: string) {
    return this.before.get(path)?.type === "file"
  }

  /** " (operations[i] of this transaction makes it a file)" when an earlier operation claimed the path. */
  claimText(path: string) {
    const claim = this.claims.get(path)
    return claim === undefined ? "" : ` (operations[${claim.index}] of this transaction makes it a ${claim.as})`
  }

  /** Parent directories of a file or directory about to exist: every level must be a directory or be creatable. */
  ensureParents(op: Operation, index: number, path: string): ToolError | undefined {
    const parents = [...ancestors(path)].reverse()
    for (const parent of parents) {
      this.touched.add(parent)
      const current = this.get(parent)
      if (current.t === "file") {
        return fail(
          "EDIT_CONFLICT",
          op,
          index,
          `"${parent}" is a file${this.claimText(parent)}, so "${path}" cannot be created below it. Choose another path.`,
          {
            path,
            conflict: parent
          }
        )
      }
      if (current.t === "other") {
        return fail("EDIT_CONFLICT", op, index, `"${parent}" is neither a file nor a directory; choose another path.`, {
          path,
          conflict: parent
        })
      }
      if (current.t === "none") this.set(parent, { t: "dir" })
    }
    return undefined
  }

  textOf(op: Operation, index: number, path: string): TextFile | ToolError {
    const current = this.get(path)
    if (current.t === "none") {
      return fail(
        "NOT_FOUND",
        op,
        index,
        `"${path}" does not exist. Check the path with workspace_inspect, or use create for a new file.`,
        { path }
      )
    }
    if (current.t === "dir")
      return fail("EDIT_CONFLICT", op, index, `"${path}" is a directory${this.claimText(path)}, not a file.`, { path })
    if (current.t === "other")
      return fail(
        "INVALID_INPUT",
        op,
        index,
        `"${path}" is a symlink or special file; edit the file it points to instead.`,
        { path }
      )
    const decoded = decodeText(current.bytes)
    if (decoded._tag === "Binary") {
      return fail(
        "BINARY_FILE",
        op,
        index,
        `"${path}" is ${decoded.reason === "nul" ? "a binary file" : "not valid UTF-8"}, so it cannot be edited as text (that would corrupt it). It can still be copied, moved or deleted.`,
        { path }
      )
    }
    return { bytes: current.bytes, text: decoded.text, bom: decoded.bom, mode: current.mode }
  }

  writableTarget(op: Operation, index: number, path: string): ToolError | undefined {
    const current = this.get(path)
    if (current.t === "dir") {
      return fail(
        "EDIT_CONFLICT",
        op,
        index,
        `"${path}" is a directory${this.claimText(path)}; a file cannot take its place. Choose another path.`,
        { path }
      )
    }
    if (current.t === "other")
      return fail(
        "INVALID_INPUT",
        op,
        index,
        `"${path}" is a symlink or special file; write the file it points to instead.`,
        { path }
      )
    return undefined
  }

  putFile(index: number, path: string, bytes: Uint8Array, mode: number | undefined) {
    this.set(path, { t: "file", bytes, mode })
    this.claims.set(path, { index, as: "file" })
  }

  /** copy or move of one file (also a file rename of rename_symbol). */
  transfer(
    op: Operation,
    index: number,
    type: "copy" | "move",
    from: string,
    to: string,
    overwrite: boolean
  ): ToolError | undefined {
    if (from === to)
      return fail("INVALID_INPUT", op, index, `from and to are the same path; give a different target.`, {
        path: to
      })
    const source = this.get(from)
    if (source.t === "none")
      return fail("NOT_FOUND", op, index, `"${from}" does not exist. Check the path with workspace_inspect.`, {
        path: from
      })
    if (source.t === "dir")
      return fail(
        "INVALID_INPUT",
        op,
        index,
        `"${from}" is a directory; ${type} works on files. ${type} each file instead.`,
        { path: from }
      )
    if (source.t === "other")
      return fail(
        "INVALID_INPUT",
        op,
        index,
        `"${from}" is a symlink or special file; ${type} the file it points to.`,
        { path: from }
      )
    const problem = this.writableTarget(op, index, to)
    if (problem !== undefined) return problem
    const target = this.get(to)
    if (target.t === "file" && !overwrite) {
      return fail(
        "EDIT_CONFLICT",
        op,
        index,
        `"${to}" already exists${this.claimText(to)}. Choose another target, or overwrite: true to replace it (destructive).`,
        {
          path: to
        }
      )
    }
    if (type === "move")
      this.destructive.push(
        op.type === "rename_symbol"
          ? { operation: "rename_symbol file rename", path: `${from} -> ${to}` }
          : { operation: "move", path: from, alternative: "copy" }
      )
    if (target.t === "file" && this.existedAsFile(to))
      this.destructive.push({ operation: `${type} with overwrite: true`, path: to })
    const parents = this.ensureParents(op, index, to)
    if (parents !== undefined) return parents
    this.putFile(index, to, source.bytes, source.mode)
    if (type === "move") {
      this.set(from, { t: "none" })
      this.claims.delete(from)
    }
    return undefined
  }
}
