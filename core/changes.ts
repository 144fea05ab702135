/**
 * The recovery listing behind `workspace_inspect changes`: each owning tool declares its `changes`
 * source on its definition (transactions, jobs, task boards, ...), so inspect never reads another
 * tool's store format itself. This module derives the list from ALL_TOOLS; inspect itself reads the
 * runtime's candidates through the RegisteredTools service.
 */
import { changeSourcesOf } from "./contributions.ts"
import { ALL_TOOLS } from "./tools/index.ts"
export type { ChangeKey, ChangeSource } from "./tools/Tool.ts"

/** Every source the shipped tools contribute. */
export const CHANGE_SOURCES = changeSourcesOf(ALL_TOOLS)
