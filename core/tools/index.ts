/** Every tool the registry knows, in the order tools/list shows them. */
import { inspectTool } from "./inspect/inspect.ts"
import { notesTool } from "./notes/notes.ts"
import { planTool } from "./plan/plan.ts"
import type { ToolDefinition } from "./Tool.ts"

export const ALL_TOOLS: ReadonlyArray<ToolDefinition> = [inspectTool, planTool, notesTool] as unknown as ReadonlyArray<ToolDefinition>
