/** Where workspace_agent keeps its runs, apart from its Schemas so the tool's light half (tool.ts) names it without them. */

/** The runs folder under .agentic/. */
export const RUNS_DIR = "runs"
