/** Where workspace_research keeps its projects, apart from its Schemas so the tool's light half (tool.ts) names it without them. */

/** The research projects folder under .agentic/. */
export const RESEARCH_DIR = "research"
