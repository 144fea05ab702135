/** Every tool the registry knows, in the order tools/list shows them. */
import { agentTool } from "./agent/tool.ts"
import { BROWSER_TOOLS } from "./browser/tool.ts"
import { commandTool } from "./command/tool.ts"
import { editTool } from "./edit/tool.ts"
import { inspectTool } from "./inspect/tool.ts"
import { notesTool } from "./notes/tool.ts"
import { planTool } from "./plan/tool.ts"
import { researchTool } from "./research/tool.ts"
import { tasksTool } from "./tasks/tool.ts"
import type { ToolDefinition } from "./Tool.ts"
import { vcsTool } from "./vcs/tool.ts"
import { WORKSPACES_TOOLS } from "./workspaces/tool.ts"

export const ALL_TOOLS: ReadonlyArray<ToolDefinition> = [
  inspectTool,
  editTool,
  planTool,
  notesTool,
  commandTool,
  vcsTool,
  tasksTool,
  researchTool,
  ...BROWSER_TOOLS,
  agentTool,
  ...WORKSPACES_TOOLS
]
