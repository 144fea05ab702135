/**
 * The planning of each operation kind of workspace_edit: one function per kind, each applying its operation
 * to the virtual tree or returning why it cannot apply (copy and move are the tree's `transfer`, rename_symbol
 * is planRename.ts).
 */
import type { ToolError } from "../../protocol/errors.ts"
import { ancestors } from "../../services/paths.ts"
import { stripGutter } from "../../text/gutter.ts"
import type { StoredOperation as Operation } from "./schema.ts"
import { encodeText, eolStyle, occurrences, replaceText, splitLinesKeep, toEolStyle } from "./text.ts"
import { fail, gutterCheck, type VirtualTree } from "./virtualTree.ts"

type Op<T extends Operation["type"]> = Extract<Operation, { readonly type: T }>

/** create: a new file (or, with overwrite, a whole replacement of one). */
export const planCreate = (tree: VirtualTree, op: Op<"create">, index: number): ToolError | undefined => {
  const gutter = gutterCheck(op, index, "content", op.content)
  if (gutter !== undefined) return gutter
  const problem = tree.writableTarget(op, index, op.path)
  if (problem !== undefined) return problem
  const current = tree.get(op.path)
  if (current.t === "file" && op.overwrite !== true) {
    return fail(
      "EDIT_CONFLICT",
      op,
      index,
      `"${op.path}" already exists${tree.claimText(op.path)}. Use replace (or splice) to change it, or overwrite: true to replace it whole (destructive).`,
      { path: op.path }
    )
  }
  if (current.t === "file" && tree.existedAsFile(op.path)) {
    tree.destructive.push({ operation: "create with overwrite: true", path: op.path, alternative: "replace" })
  }
  const parents = tree.ensureParents(op, index, op.path)
  if (parents !== undefined) return parents
  tree.putFile(index, op.path, new TextEncoder().encode(op.content), current.t === "file" ? current.mode : undefined)
  return undefined
}

/** rewrite: a file's whole content, in its line-ending style and BOM (or a new file with create_if_missing). */
export const planRewrite = (tree: VirtualTree, op: Op<"rewrite">, index: number): ToolError | undefined => {
  const gutter = gutterCheck(op, index, "content", op.content)
  if (gutter !== undefined) return gutter
  const current = tree.get(op.path)
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
    const parents = tree.ensureParents(op, index, op.path)
    if (parents !== undefined) return parents
    tree.putFile(index, op.path, new TextEncoder().encode(op.content), undefined)
    return undefined
  }
  const text = tree.textOf(op, index, op.path)
  if ("code" in text) return text
  if (tree.existedAsFile(op.path))
    tree.destructive.push({ operation: "rewrite", path: op.path, alternative: "replace" })
  tree.putFile(index, op.path, encodeText(toEolStyle(op.content, eolStyle(text.text)), text.bom), text.mode)
  return undefined
}

/** replace: every occurrence of search, which must occur exactly expected_matches times. */
export const planReplace = (tree: VirtualTree, op: Op<"replace">, index: number): ToolError | undefined => {
  const gutter = gutterCheck(op, index, "search", op.search) ?? gutterCheck(op, index, "replacement", op.replacement)
  if (gutter !== undefined) return gutter
  const text = tree.textOf(op, index, op.path)
  if ("code" in text) return text
  const style = eolStyle(text.text)
  const search = toEolStyle(op.search, style)
  const replacement = toEolStyle(op.replacement, style)
  const at = occurrences(text.text, search)
  const found = at.length
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
  tree.putFile(index, op.path, replaceText(text.bytes, text.text, text.bom, search, replacement, at), text.mode)
  return undefined
}

/** splice: delete_count lines from start_line replaced by content, in the file's line-ending style. */
export const planSplice = (tree: VirtualTree, op: Op<"splice">, index: number): ToolError | undefined => {
  const gutter = gutterCheck(op, index, "content", op.content)
  if (gutter !== undefined) return gutter
  const text = tree.textOf(op, index, op.path)
  if ("code" in text) return text
  const style = eolStyle(text.text)
  const eol =
    style === "crlf" || (style === "mixed" && text.text.indexOf("\r\n") === text.text.indexOf("\n") - 1) ? "\r\n" : "\n"
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
  tree.putFile(index, op.path, encodeText(next, text.bom), text.mode)
  return undefined
}

/** delete: a regular file (a missing one is fine with ignore_missing). */
export const planDelete = (tree: VirtualTree, op: Op<"delete">, index: number): ToolError | undefined => {
  const current = tree.get(op.path)
  if (current.t === "none") {
    if (op.ignore_missing === true) return undefined
    return fail("NOT_FOUND", op, index, `"${op.path}" does not exist. Check the path, or set ignore_missing: true.`, {
      path: op.path
    })
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
  if (tree.existedAsFile(op.path)) tree.destructive.push({ operation: "delete", path: op.path })
  tree.set(op.path, { t: "none" })
  tree.claims.delete(op.path)
  return undefined
}

/** mkdir: a directory and its missing parents (listed even when it existed before). */
export const planMkdir = (tree: VirtualTree, op: Op<"mkdir">, index: number): ToolError | undefined => {
  if (op.path === "")
    return fail("INVALID_INPUT", op, index, "the workspace root always exists; name a directory inside it.", {
      path: op.path
    })
  for (const parent of ancestors(op.path)) {
    if (tree.get(parent).t === "file") {
      return fail(
        "EDIT_CONFLICT",
        op,
        index,
        `"${parent}", an ancestor of "${op.path}", exists as a file${tree.claimText(parent)}; a directory cannot be created below it. Choose another path.`,
        { path: op.path, conflict: parent }
      )
    }
  }
  const current = tree.get(op.path)
  if (current.t === "file") {
    return fail(
      "EDIT_CONFLICT",
      op,
      index,
      `"${op.path}" exists as a file${tree.claimText(op.path)}; a directory cannot take its place. Choose another path.`,
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
  const existedBefore = tree.before.get(op.path)?.type === "directory"
  if (current.t === "none") {
    const parents = tree.ensureParents(op, index, op.path)
    if (parents !== undefined) return parents
    tree.set(op.path, { t: "dir" })
  }
  tree.claims.set(op.path, { index, as: "directory" })
  if (!tree.listed.has(op.path)) tree.listed.set(op.path, { path: op.path, existedBefore })
  return undefined
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
