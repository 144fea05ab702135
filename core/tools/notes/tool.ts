/** workspace_notes: plugin-owned notes under .agentic/notes/ and the durable .agentic/MEMORY.md. Never gated. */
import { defineTool } from "../Tool.ts"
import { DESCRIPTION } from "./description.ts"
import { appendNote, deleteNote, listNotes, readNote, writeNote } from "./interpret.ts"
import { MEMORY_FILE, notesActions } from "./schema.ts"

/** The workspace_notes tool. */
export const notesTool = defineTool({
  name: "workspace_notes",
  short: "notes",
  description: DESCRIPTION,
  actions: notesActions,
  enabled: () => true,
  hints: {
    readOnlyHint: false,
    destructiveHint: false,
    openWorldHint: false,
    why: "writes plugin-owned notes under `.agentic/`"
  },
  storage: [
    {
      name: "memory",
      path: ".agentic/MEMORY.md",
      probe: MEMORY_FILE,
      description: "durable workspace memory (workspace_notes memory: true)",
      rank: 10
    },
    {
      name: "notes",
      path: ".agentic/notes/<name>.md",
      probe: "notes",
      description: "notes (workspace_notes)",
      rank: 20
    }
  ],
  probe: { args: { action: "list" }, ok: true },
  handlers: {
    write: { gate: "none", run: writeNote },
    append: { gate: "none", run: appendNote },
    read: { gate: "none", run: readNote },
    list: { gate: "none", run: listNotes },
    delete: { gate: "none", run: deleteNote }
  }
})
