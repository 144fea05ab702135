/**
 * A tool's kernel-owned write, OwnStore: the workspace's StateStore confined to the tool's own storage, and the
 * context a tool's effect runs in with it (core/registry.ts runs every call through `withOwnStore`).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { confineStore, OwnStore, StateStore, type StateStoreShape } from "./store/StateStore.ts"
import type { ToolDefinition } from "./tools/Tool.ts"

/**
 * The storage a tool keeps records in, relative to `.agentic/`: its `storage` entries' probe paths, its
 * `alsoWrites`, and its artifacts (`artifacts/<short>` and `artifacts/<short>.<action>`).
 */
export const ownedStorage = (tool: Pick<ToolDefinition, "short" | "storage" | "alsoWrites">): ReadonlyArray<string> => [
  ...(tool.storage ?? []).map((entry) => entry.probe),
  ...(tool.alsoWrites ?? []),
  `artifacts/${tool.short}`,
  `artifacts/${tool.short}.*`
]

type OwnedTool = Pick<ToolDefinition, "name" | "short" | "storage" | "alsoWrites">

/**
 * The confined stores made so far, per store and tool: a runtime has one StateStore and fixed tool definitions,
 * so each tool's OwnStore is made once per session, not on every call.
 */
const confinedStores = new WeakMap<StateStoreShape, WeakMap<OwnedTool, StateStoreShape>>()

/** What `table` keeps for the pair (first, second), made by `make` the first time the pair is asked for. */
const keptFor = <K1 extends object, K2 extends object, V>(
  table: WeakMap<K1, WeakMap<K2, V>>,
  first: K1,
  second: K2,
  make: () => V
): V => {
  let bySecond = table.get(first)
  if (bySecond === undefined) {
    bySecond = new WeakMap()
    table.set(first, bySecond)
  }
  let value = bySecond.get(second)
  if (value === undefined) {
    value = make()
    bySecond.set(second, value)
  }
  return value
}

const ownStoreOf = (store: StateStoreShape, tool: OwnedTool): StateStoreShape =>
  keptFor(confinedStores, store, tool, () => confineStore(store, tool.name, ownedStorage(tool)))

/**
 * The contexts made so far, per context and tool: a context is immutable, so the one a tool's calls run in (the
 * caller's, with the tool's OwnStore added) is made once per runtime and tool. `Effect.provideService` copies
 * every service of the caller's context into a new one on each call (about 15 us of a capabilities call in
 * process); a context seen again is this one. A caller's context made for one call (under a progress reporter)
 * is a key of its own, collected with it.
 */
const ownContexts = new WeakMap<Context.Context<never>, WeakMap<OwnedTool, Context.Context<never>>>()

/** Runs a tool's effect with its kernel-owned write: OwnStore, the StateStore confined to the tool's storage. */
export const withOwnStore = <A, E, R>(
  tool: OwnedTool,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, Exclude<R, OwnStore> | StateStore> =>
  Effect.mapInputContext(
    effect,
    (caller: Context.Context<Exclude<R, OwnStore> | StateStore>) =>
      keptFor(
        ownContexts,
        caller as Context.Context<never>,
        tool,
        () => Context.add(caller, OwnStore, ownStoreOf(Context.get(caller, StateStore), tool)) as Context.Context<never>
      ) as Context.Context<R>
  )
