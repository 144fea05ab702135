/**
 * Work every adapter runs once when it starts on a workspace, before the first tool call (recovery of
 * interrupted commits, jobs whose supervisor was lost): each tool declares its own `startup` steps on
 * its definition; the runtime runs those of its candidate tools, in tool order.
 */
import { startupStepsOf } from "./contributions.ts"
import { ALL_TOOLS } from "./tools/index.ts"
export type { StartupStep } from "./tools/Tool.ts"

/** The start-up steps of the shipped tools, in order. */
export const STARTUP_STEPS = startupStepsOf(ALL_TOOLS)
