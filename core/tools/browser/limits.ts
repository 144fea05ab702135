/** workspace_browser's limits its description states, apart from its Schemas so the tool's light half (tool.ts) names them without them. */

/** The longest a wait may be, in milliseconds. */
export const WAIT_MAX_MS = 30_000
/** The most characters one type control may type. */
export const TYPE_MAX_CHARS = 10_000
