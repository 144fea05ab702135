/** Where workspace_tasks keeps its boards, apart from its Schemas so the tool's light half (tool.ts) names it without them. */

/** The boards folder under .agentic/. */
export const TASKS_DIR = "tasks"
