/**
 * The pure planner of workspace_edit: operations (paths already confined) plus the before-state they
 * read -> the planned transaction: the net change of every file, the directories it creates, the
 * before-state of every path it touches (bound into the approval hash), and why it is destructive.
 * Operations apply in order over a virtual tree, so a later operation sees what an earlier one did.
 */
import * as Either from "effect/Either"
import type { DestructiveReason } from "../../gate/records.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { ancestors } from "../../services/paths.ts"
import { gutterRun, stripGutter } from "../../text/gutter.ts"
import { netChanges, type Virtual } from "./netChanges.ts"
import { planRename } from "./planRename.ts"
import type { StoredOperation as Operation } from "./schema.ts"
import { decodeText, encodeText, eolStyle, occurrences, splitLinesKeep, toEolStyle } from "./text.ts"

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

const label = (op: Operation, index: number) =>
  `operations[${index}] (${op.type} ${op.type === "copy" || op.type === "move" ? `${op.from} -> ${op.to}` : op.type === "rename_symbol" ? `${op.old_name} -> ${op.new_name} at ${op.path}:${op.line}:${op.column}` : op.path})`

const describeBefore = (entry: BeforeEntry | undefined): string =>
  entry === undefined || entry.type === "missing"
    ? "missing"
    : entry.type === "file"
      ? entry.sha256
      : entry.type === "directory"
        ? "directory"
        : "other"

/** Plans a transaction; the first operation that cannot apply fails it with a code and a repair. */
export const planTransaction = (
  operations: ReadonlyArray<ResolvedOperation>,
  before: BeforeState
): Either.Either<PlannedTransaction, ToolError> => {
  const state = new Map<string, Virtual>()
  const order: Array<string> = []
  const claims = new Map<string, { readonly index: number; readonly as: "file" | "directory" }>()
  const listed = new Map<string, PlannedDirectory>()
  const destructive: Array<DestructiveReason> = []
  const touched = new Set<string>()

  const get = (path: string): Virtual => {
    const current = state.get(path)
    if (current !== undefined) return current
    const entry = before.get(path)
    if (entry === undefined || entry.type === "missing") return { t: "none" }
    if (entry.type === "file") return { t: "file", bytes: entry.bytes, mode: entry.mode }
    if (entry.type === "directory") return { t: "dir" }
    return { t: "other" }
  }
  const set = (path: string, value: Virtual) => {
    if (!order.includes(path)) order.push(path)
    state.set(path, value)
  }
  const existedAsFile = (path: string) => before.get(path)?.type === "file"

  const fail = (
    code: Parameters<typeof toolError>[0],
    op: Operation,
    index: number,
    message: string,
    extra: Record<string, unknown> = {}
  ) => toolError(code, `${label(op, index)}: ${message}`, { operation: index, type: op.type, ...extra })

  const claimText = (path: string) => {
    const claim = claims.get(path)
    return claim === undefined ? "" : ` (operations[${claim.index}] of this transaction makes it a ${claim.as})`
  }

  // Parent directories of a file or directory about to exist: every level must be a directory or be creatable.
  const ensureParents = (op: Operation, index: number, path: string): ToolError | undefined => {
    const parents = [...ancestors(path)].reverse()
    for (const parent of parents) {
      touched.add(parent)
      const current = get(parent)
      if (current.t === "file") {
        return fail(
          "EDIT_CONFLICT",
          op,
          index,
          `"${parent}" is a file${claimText(parent)}, so "${path}" cannot be created below it. Choose another path.`,
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
      if (current.t === "none") set(parent, { t: "dir" })
    }
    return undefined
  }

  const gutterCheck = (
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

  const textOf = (
    op: Operation,
    index: number,
    path: string
  ): { text: string; bom: boolean; mode?: number | undefined } | ToolError => {
    const current = get(path)
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
      return fail("EDIT_CONFLICT", op, index, `"${path}" is a directory${claimText(path)}, not a file.`, { path })
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
    return { text: decoded.text, bom: decoded.bom, mode: current.mode }
  }

  const writableTarget = (op: Operation, index: number, path: string): ToolError | undefined => {
    const current = get(path)
    if (current.t === "dir") {
      return fail(
        "EDIT_CONFLICT",
        op,
        index,
        `"${path}" is a directory${claimText(path)}; a file cannot take its place. Choose another path.`,
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

  const putFile = (index: number, path: string, bytes: Uint8Array, mode: number | undefined) => {
    set(path, { t: "file", bytes, mode })
    claims.set(path, { index, as: "file" })
  }

  /** copy or move of one file (also a file rename of rename_symbol). */
  const transfer = (
    op: Operation,
    index: number,
    type: "copy" | "move",
    from: string,
    to: string,
    overwrite: boolean
  ): ToolError | undefined => {
    if (from === to)
      return fail("INVALID_INPUT", op, index, `from and to are the same path; give a different target.`, {
        path: to
      })
    const source = get(from)
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
    const problem = writableTarget(op, index, to)
    if (problem !== undefined) return problem
    const target = get(to)
    if (target.t === "file" && !overwrite) {
      return fail(
        "EDIT_CONFLICT",
        op,
        index,
        `"${to}" already exists${claimText(to)}. Choose another target, or overwrite: true to replace it (destructive).`,
        {
          path: to
        }
      )
    }
    if (type === "move")
      destructive.push(
        op.type === "rename_symbol"
          ? { operation: "rename_symbol file rename", path: `${from} -> ${to}` }
          : { operation: "move", path: from, alternative: "copy" }
      )
    if (target.t === "file" && existedAsFile(to))
      destructive.push({ operation: `${type} with overwrite: true`, path: to })
    const parents = ensureParents(op, index, to)
    if (parents !== undefined) return parents
    putFile(index, to, source.bytes, source.mode)
    if (type === "move") {
      set(from, { t: "none" })
      claims.delete(from)
    }
    return undefined
  }

  for (let index = 0; index < operations.length; index++) {
    const op = operations[index]!
    for (const path of operationPaths(op)) {
      touched.add(path)
      for (const parent of ancestors(path)) touched.add(parent)
    }
    const error = ((): ToolError | undefined => {
      switch (op.type) {
        case "create": {
          const gutter = gutterCheck(op, index, "content", op.content)
          if (gutter !== undefined) return gutter
          const problem = writableTarget(op, index, op.path)
          if (problem !== undefined) return problem
          const current = get(op.path)
          if (current.t === "file" && op.overwrite !== true) {
            return fail(
              "EDIT_CONFLICT",
              op,
              index,
              `"${op.path}" already exists${claimText(op.path)}. Use replace (or splice) to change it, or overwrite: true to replace it whole (destructive).`,
              { path: op.path }
            )
          }
          if (current.t === "file" && existedAsFile(op.path)) {
            destructive.push({ operation: "create with overwrite: true", path: op.path, alternative: "replace" })
          }
          const parents = ensureParents(op, index, op.path)
          if (parents !== undefined) return parents
          putFile(index, op.path, new TextEncoder().encode(op.content), current.t === "file" ? current.mode : undefined)
          return undefined
        }
        case "rewrite": {
          const gutter = gutterCheck(op, index, "content", op.content)
          if (gutter !== undefined) return gutter
          const current = get(op.path)
          if (current.t === "none") {
            if (op.create_if_missing !== true) {
              return fail(
                "NOT_FOUND",
                op,
                index,
                `"${op.path}" does not exist. Use create for a new file, or create_if_missing: true.`,
                { path: op.path }
              )
            }
            const parents = ensureParents(op, index, op.path)
            if (parents !== undefined) return parents
            putFile(index, op.path, new TextEncoder().encode(op.content), undefined)
            return undefined
          }
          const text = textOf(op, index, op.path)
          if ("code" in text) return text
          if (existedAsFile(op.path)) destructive.push({ operation: "rewrite", path: op.path, alternative: "replace" })
          putFile(index, op.path, encodeText(toEolStyle(op.content, eolStyle(text.text)), text.bom), text.mode)
          return undefined
        }
        case "replace": {
          const gutter =
            gutterCheck(op, index, "search", op.search) ?? gutterCheck(op, index, "replacement", op.replacement)
          if (gutter !== undefined) return gutter
          const text = textOf(op, index, op.path)
          if ("code" in text) return text
          const style = eolStyle(text.text)
          const search = toEolStyle(op.search, style)
          const replacement = toEolStyle(op.replacement, style)
          const found = occurrences(text.text, search).length
          const expected = op.expected_matches ?? 1
          if (found === 0) {
            return fail(
              "EDIT_CONFLICT",
              op,
              index,
              `search was not found in "${op.path}"; nothing was changed.${gutterProbe(text.text, op.search, style)} Read the file again and copy the exact text.`,
              {
                path: op.path,
                matches: 0,
                expectedMatches: expected
              }
            )
          }
          if (found !== expected) {
            return fail(
              "EDIT_CONFLICT",
              op,
              index,
              `search occurs ${found} time(s) in "${op.path}" but expected_matches is ${expected}. Make search longer so it matches exactly the intended place(s), or set expected_matches: ${found} to replace them all.`,
              { path: op.path, matches: found, expectedMatches: expected }
            )
          }
          putFile(index, op.path, encodeText(text.text.split(search).join(replacement), text.bom), text.mode)
          return undefined
        }
        case "splice": {
          const gutter = gutterCheck(op, index, "content", op.content)
          if (gutter !== undefined) return gutter
          const text = textOf(op, index, op.path)
          if ("code" in text) return text
          const style = eolStyle(text.text)
          const eol =
            style === "crlf" || (style === "mixed" && text.text.indexOf("\r\n") === text.text.indexOf("\n") - 1)
              ? "\r\n"
              : "\n"
          const lines = splitLinesKeep(text.text)
          const count = lines.length
          if (op.start_line > count + 1) {
            return fail(
              "INVALID_INPUT",
              op,
              index,
              `start_line ${op.start_line} is past the end: "${op.path}" has ${count} line(s); use ${count + 1} to append.`,
              {
                path: op.path,
                lineCount: count
              }
            )
          }
          const start = op.start_line - 1
          if (start + op.delete_count > count) {
            return fail(
              "INVALID_INPUT",
              op,
              index,
              `delete_count ${op.delete_count} from line ${op.start_line} runs past the end of "${op.path}" (${count} line(s)); at most ${count - start} can be deleted there.`,
              { path: op.path, lineCount: count }
            )
          }
          const body =
            op.content.length === 0
              ? ""
              : toEolStyle(op.content, style === "mixed" || style === "none" ? (eol === "\r\n" ? "crlf" : "lf") : style)
          const inserted = splitLinesKeep(body.length === 0 || body.endsWith("\n") ? body : `${body}${eol}`)
          const lastUnterminated = count > 0 && !lines[count - 1]!.endsWith("\n")
          if (start === count && lastUnterminated && inserted.length > 0) lines[count - 1] = `${lines[count - 1]}${eol}`
          if (start + op.delete_count === count && lastUnterminated && op.delete_count > 0 && inserted.length > 0) {
            const last = inserted[inserted.length - 1]!
            inserted[inserted.length - 1] = last.endsWith("\r\n") ? last.slice(0, -2) : last.slice(0, -1)
          }
          const next = [...lines.slice(0, start), ...inserted, ...lines.slice(start + op.delete_count)].join("")
          putFile(index, op.path, encodeText(next, text.bom), text.mode)
          return undefined
        }
        case "copy":
        case "move":
          return transfer(op, index, op.type, op.from, op.to, op.overwrite === true)
        case "rename_symbol":
          return planRename(op, index, {
            changed: (path) => state.has(path),
            operationPaths,
            textOf,
            fail,
            putFile,
            transfer
          })
        case "delete": {
          const current = get(op.path)
          if (current.t === "none") {
            if (op.ignore_missing === true) return undefined
            return fail(
              "NOT_FOUND",
              op,
              index,
              `"${op.path}" does not exist. Check the path, or set ignore_missing: true.`,
              { path: op.path }
            )
          }
          if (current.t === "dir") {
            return fail(
              "INVALID_INPUT",
              op,
              index,
              `"${op.path}" is a directory; delete removes files. Delete the files inside it one by one.`,
              { path: op.path }
            )
          }
          if (current.t === "other")
            return fail(
              "INVALID_INPUT",
              op,
              index,
              `"${op.path}" is a symlink or special file; workspace_edit deletes regular files only.`,
              { path: op.path }
            )
          if (existedAsFile(op.path)) destructive.push({ operation: "delete", path: op.path })
          set(op.path, { t: "none" })
          claims.delete(op.path)
          return undefined
        }
        case "mkdir": {
          if (op.path === "")
            return fail("INVALID_INPUT", op, index, "the workspace root always exists; name a directory inside it.", {
              path: op.path
            })
          for (const parent of ancestors(op.path)) {
            if (get(parent).t === "file") {
              return fail(
                "EDIT_CONFLICT",
                op,
                index,
                `"${parent}", an ancestor of "${op.path}", exists as a file${claimText(parent)}; a directory cannot be created below it. Choose another path.`,
                { path: op.path, conflict: parent }
              )
            }
          }
          const current = get(op.path)
          if (current.t === "file") {
            return fail(
              "EDIT_CONFLICT",
              op,
              index,
              `"${op.path}" exists as a file${claimText(op.path)}; a directory cannot take its place. Choose another path.`,
              {
                path: op.path,
                conflict: op.path
              }
            )
          }
          if (current.t === "other")
            return fail("EDIT_CONFLICT", op, index, `"${op.path}" is a symlink or special file; choose another path.`, {
              path: op.path
            })
          const existedBefore = before.get(op.path)?.type === "directory"
          if (current.t === "none") {
            const parents = ensureParents(op, index, op.path)
            if (parents !== undefined) return parents
            set(op.path, { t: "dir" })
          }
          claims.set(op.path, { index, as: "directory" })
          if (!listed.has(op.path)) listed.set(op.path, { path: op.path, existedBefore })
          return undefined
        }
      }
    })()
    if (error !== undefined) return Either.left(error)
  }

  const { files, createdDirectories } = netChanges(order, state, before)
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

/** The zero-match probe: whether the search would match with a read gutter stripped, worded as a condition to check. */
export const gutterProbe = (text: string, search: string, style: ReturnType<typeof eolStyle>): string => {
  const stripped = stripGutter(search)
  if (stripped === search || stripped.length === 0) return ""
  const count = occurrences(text, toEolStyle(stripped, style)).length
  return count === 0
    ? ' search has lines that start like a read gutter ("N | "), but even without them it would not match.'
    : ` If this text was copied from a workspace_inspect read result, note that the "N | " line-number prefixes are not part of the file: without them, search would match ${count} time(s). Check whether that is the case before changing the operation.`
}
