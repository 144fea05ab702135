/**
 * The kernel lists, derived from the tool definitions: start-up steps, the `changes` sources and the
 * `.agentic/` storage map. Nothing here imports a tool: callers pass the definitions (ALL_TOOLS, or the
 * candidates a runtime was started with through the RegisteredTools service).
 */
import type { ChangeSource, StorageEntry, ToolDefinition } from "./tools/Tool.ts"

/** Storage the kernel owns: the approvals store (the gate) and artifacts (the shared result budget). */
export const KERNEL_STORAGE: ReadonlyArray<StorageEntry> = [
  {
    name: "approvals",
    path: ".agentic/approvals/state.json",
    probe: "approvals/state.json",
    description: "approval and plan records",
    rank: 30
  },
  {
    name: "artifacts",
    path: ".agentic/artifacts/",
    probe: "artifacts",
    description: "full results too large for one envelope",
    rank: 100
  }
]

/**
 * A list derived from a tool set, kept per set: a runtime's candidates are one array for its whole session,
 * so capabilities and changes derive the storage map and the change sources once, not on every call.
 */
const perToolSet = <A>(derive: (tools: ReadonlyArray<ToolDefinition>) => A) => {
  const kept = new WeakMap<ReadonlyArray<ToolDefinition>, A>()
  return (tools: ReadonlyArray<ToolDefinition>): A => {
    const known = kept.get(tools)
    if (known !== undefined) return known
    const derived = derive(tools)
    kept.set(tools, derived)
    return derived
  }
}

/** The changes sources of these tools, by rank (the order of their keys in the listing's `data`). */
export const changeSourcesOf: (tools: ReadonlyArray<ToolDefinition>) => ReadonlyArray<ChangeSource> = perToolSet(
  (tools) => tools.flatMap((tool) => tool.changes ?? []).sort((a, b) => a.rank - b.rank)
)

/** The storage map: the kernel's entries and each tool's, by rank; a name claimed twice keeps the first. */
export const storageMapOf: (tools: ReadonlyArray<ToolDefinition>) => ReadonlyArray<StorageEntry> = perToolSet((tools) =>
  storageMapFrom(tools)
)

const storageMapFrom = (tools: ReadonlyArray<ToolDefinition>): ReadonlyArray<StorageEntry> => {
  const seen = new Set<string>()
  return [
    ...KERNEL_STORAGE.filter((entry) => !tools.some((tool) => tool.storage?.some((own) => own.name === entry.name))),
    ...tools.flatMap((tool) => tool.storage ?? [])
  ]
    .sort((a, b) => a.rank - b.rank)
    .filter((entry) => {
      if (seen.has(entry.name)) return false
      seen.add(entry.name)
      return true
    })
}
