/**
 * The planner's rename_symbol (issue 30 item 5): the language server's text edits applied to the virtual tree,
 * each checked to replace exactly the old name, and its file renames as moves; edits of a file a rename
 * creates apply after the rename (LSP's documentChanges order).
 */
import type { ToolError } from "../../protocol/errors.ts"
import { applyPositionalEdits, rangeText } from "./lspEdits.ts"
import type { ResolvedRenameOp, StoredOperation } from "./schema.ts"
import { encodeText, eolStyle, toEolStyle } from "./text.ts"

/** What planRename needs of planTransaction's virtual tree. */
export interface RenameTree {
  /** Whether an earlier operation of the transaction changed the path. */
  readonly changed: (path: string) => boolean
  readonly operationPaths: (op: StoredOperation) => ReadonlyArray<string>
  readonly textOf: (
    op: StoredOperation,
    index: number,
    path: string
  ) => { text: string; bom: boolean; mode?: number | undefined } | ToolError
  readonly fail: (
    code: ToolError["code"],
    op: StoredOperation,
    index: number,
    message: string,
    extra?: Record<string, unknown>
  ) => ToolError
  readonly putFile: (index: number, path: string, bytes: Uint8Array, mode: number | undefined) => void
  readonly transfer: (
    op: StoredOperation,
    index: number,
    type: "copy" | "move",
    from: string,
    to: string,
    overwrite: boolean
  ) => ToolError | undefined
}

/** Applies a resolved rename_symbol to the tree, or returns why it cannot apply. */
export const planRename = (op: ResolvedRenameOp, index: number, tree: RenameTree): ToolError | undefined => {
  // The server answered for the files on disk: an earlier operation's change would shift its positions.
  const earlier = tree.operationPaths(op).find((path) => tree.changed(path))
  if (earlier !== undefined) {
    return tree.fail(
      "INVALID_INPUT",
      op,
      index,
      `an earlier operation of this transaction changes "${earlier}", but the language server's rename is of the files as they are on disk. Put rename_symbol first, or in its own transaction.`,
      { path: earlier }
    )
  }
  const renamedTo = new Set(op.renames.map((rename) => rename.to))
  // Edits of a file a rename creates refer to it after the rename (LSP's documentChanges order).
  const edit = (file: (typeof op.files)[number]): ToolError | undefined => {
    const text = tree.textOf(op, index, file.path)
    if ("code" in text) return text
    const style = eolStyle(text.text)
    for (const [at, change] of file.edits.entries()) {
      const found = rangeText(text.text, change.range)
      if (found !== op.old_name) {
        return tree.fail(
          "EDIT_CONFLICT",
          op,
          index,
          `the language server's edit ${at} of "${file.path}" (line ${change.range.start.line + 1}, column ${change.range.start.character + 1}) replaces ${found === undefined ? "text past the end of the file" : JSON.stringify(found.slice(0, 80))}, not "${op.old_name}": the file changed since the server read it. Nothing was written; preview the rename again.`,
          { path: file.path, edit: at, found: found?.slice(0, 200) ?? null, expected: op.old_name }
        )
      }
    }
    const applied = applyPositionalEdits(
      text.text,
      file.edits.map((change) => ({ range: change.range, newText: toEolStyle(change.new_text, style) }))
    )
    if (applied._tag === "Left") {
      return tree.fail(
        "EDIT_CONFLICT",
        op,
        index,
        `the language server's rename does not fit "${file.path}" (${applied.left.message}): the file changed since the server read it, or the server answered wrongly. Nothing was written; preview the rename again.`,
        { path: file.path, reason: applied.left.reason, edit: applied.left.edit }
      )
    }
    tree.putFile(index, file.path, encodeText(applied.right, text.bom), text.mode)
    return undefined
  }
  for (const file of op.files.filter((candidate) => !renamedTo.has(candidate.path))) {
    const problem = edit(file)
    if (problem !== undefined) return problem
  }
  for (const rename of op.renames) {
    const problem = tree.transfer(op, index, "move", rename.from, rename.to, false)
    if (problem !== undefined) return problem
  }
  for (const file of op.files.filter((candidate) => renamedTo.has(candidate.path))) {
    const problem = edit(file)
    if (problem !== undefined) return problem
  }
  return undefined
}
