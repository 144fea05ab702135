/** Every tool the registry knows, in the order tools/list shows them. */
import { editTool } from "./edit/edit.ts"
import { notesTool } from "./notes/notes.ts"
import { planTool } from "./plan/plan.ts"
import type { ToolDefinition } from "./Tool.ts"

export const ALL_TOOLS: ReadonlyArray<ToolDefinition> = [planTool, notesTool, editTool] as unknown as ReadonlyArray<ToolDefinition>
