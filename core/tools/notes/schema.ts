/** workspace_notes input: the size limits, the name rules and the Schemas of its actions. */
import * as Schema from "effect/Schema"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { BoundedString } from "../Tool.ts"

/** A note's size limit in bytes. */
export const NOTE_MAX_BYTES = 200_000
/** MEMORY.md's size limit in bytes. */
export const MEMORY_MAX_BYTES = 64_000
/** The memory file, relative to .agentic/ (paths.ts). */
export { MEMORY_FILE } from "./paths.ts"

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i

/** Where a note lives: the memory file or a named note. */
export type NoteTarget = { readonly memory: true } | { readonly memory: false; readonly name: string }

/** Applies the name rules: a trailing .md stripped; letters, digits, ., _, -; starts with a letter or digit; at most 64; no device names. */
export const noteTarget = (name: string | undefined, memory: boolean | undefined): NoteTarget | ToolError => {
  if (memory === true) return { memory: true }
  if (name === undefined)
    return toolError("INVALID_INPUT", `field "name" is required unless memory is true.`, { field: "name" })
  // Every trailing .md goes, so a name list shows ("a" for "a.md.md") reads back the same note.
  const stripped = name.replace(/(\.md)+$/i, "")
  if (/^memory$/i.test(stripped)) return { memory: true }
  if (stripped.length === 0 || stripped.length > 64) {
    return toolError(
      "INVALID_INPUT",
      `field "name" must be 1 to 64 characters (without a trailing .md); got ${stripped.length}.`,
      { field: "name" }
    )
  }
  if (!NAME.test(stripped)) {
    return toolError(
      "INVALID_INPUT",
      `field "name" "${name}" may use only letters, digits, ".", "_" or "-" and must start with a letter or digit (no "/" or ".."): notes live flat in .agentic/notes/.`,
      { field: "name" }
    )
  }
  if (stripped.includes("..")) {
    return toolError("INVALID_INPUT", `field "name" "${name}" must not contain "..".`, { field: "name" })
  }
  if (RESERVED.test(stripped.split(".")[0]!)) {
    return toolError(
      "INVALID_INPUT",
      `field "name" "${name}" is a Windows reserved device name; choose another name.`,
      { field: "name" }
    )
  }
  return { memory: false, name: stripped }
}

const Name = Schema.optional(BoundedString(80, "Note name (letters, digits, . _ -)."))
const Memory = Schema.optional(
  Schema.Boolean.annotations({ description: "true: the workspace memory .agentic/MEMORY.md." })
)
const Content = BoundedString(NOTE_MAX_BYTES, "Text to write or append.")

/** The actions of workspace_notes and their inputs. */
export const notesActions = {
  write: Schema.Struct({ name: Name, memory: Memory, content: Content }),
  append: Schema.Struct({ name: Name, memory: Memory, content: Content }),
  read: Schema.Struct({ name: Name, memory: Memory }),
  list: Schema.Struct({
    limit: Schema.optional(
      Schema.Int.pipe(Schema.between(1, 200)).annotations({ description: "Notes (1-200, default 100)." })
    )
  }),
  delete: Schema.Struct({ name: Name, memory: Memory })
}

/** The decoded input of one action. */
export type NotesInput<K extends keyof typeof notesActions> = Schema.Schema.Type<(typeof notesActions)[K]>
