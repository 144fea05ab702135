/** Where workspace_notes keeps memory, apart from its Schemas so the tool's light half (tool.ts) names it without them. */

/** The memory file, relative to .agentic/. */
export const MEMORY_FILE = "MEMORY.md"
