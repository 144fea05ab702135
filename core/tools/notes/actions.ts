/** workspace_notes' action Schemas and handlers, loaded on the tool's first call or listing (tool.ts). */
import type { ToolParts } from "../Tool.ts"
import { appendNote, deleteNote, listNotes, readNote, writeNote } from "./interpret.ts"
import { notesActions } from "./schema.ts"

export const parts: ToolParts<typeof notesActions> = {
  actions: notesActions,
  handlers: {
    write: { gate: "none", run: writeNote },
    append: { gate: "none", run: appendNote },
    read: { gate: "none", run: readNote },
    list: { gate: "none", run: listNotes },
    delete: { gate: "none", run: deleteNote }
  }
}
