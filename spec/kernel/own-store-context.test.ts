/**
 * Issue 29, the per-call floor: `withOwnStore` (core/ownStore.ts) keeps the context a tool's calls run in (the
 * caller's, with the tool's OwnStore added) per caller context and tool, instead of copying every service of
 * the caller's context on each call. What is held must follow its inputs: another caller context (another
 * StateStore, another value of any service) gets a context of its own, and each tool's OwnStore stays confined
 * to that tool's storage.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import { withOwnStore } from "../../core/ownStore.ts"
import { OwnStore, StateStore, type StateStoreShape } from "../../core/store/StateStore.ts"

/** A store that records each call as "<name> <member> <path>"; `path` names the store. */
const recordingStore = (name: string, log: Array<string>): StateStoreShape =>
  new Proxy({} as StateStoreShape, {
    get: (_target, member) =>
      member === "path"
        ? (rel: string) => `${name}:${rel}`
        : (rel: string) =>
            Effect.sync(() => {
              log.push(`${name} ${String(member)} ${rel}`)
            })
  })

class Caller extends Context.Tag("spec/own-store-context/Caller")<Caller, string>() {}

const tool = (short: string) => ({ name: `spec_${short}`, short, storage: [], alsoWrites: [short] })

/** Writes `rel` through the tool's OwnStore and says which store and caller it ran under. */
const writeThrough = (rel: string) =>
  Effect.gen(function* () {
    const own = yield* OwnStore
    const caller = yield* Caller
    yield* own.writeText(rel, "x")
    return `${own.path(rel)} for ${caller}`
  })

const contextOf = (store: StateStoreShape, caller: string) =>
  Context.make(StateStore, store).pipe(Context.add(Caller, caller))

const run = <A, E>(effect: Effect.Effect<A, E, StateStore | Caller>, context: Context.Context<StateStore | Caller>) =>
  Effect.runPromise(Effect.either(Effect.provide(effect, context)))

describe("withOwnStore: the context a tool runs in, held per caller context and tool", () => {
  it("follows the caller's context: another StateStore or another service value is what the next call sees", async () => {
    const log: Array<string> = []
    const notes = tool("notes")
    const first = contextOf(recordingStore("A", log), "first")
    const second = contextOf(recordingStore("B", log), "second")
    const third = contextOf(recordingStore("A", log), "third")
    const results = []
    for (const context of [first, first, second, first, third])
      results.push(await run(withOwnStore(notes, writeThrough("notes/n.md")), context))
    expect(results).toEqual([
      Either.right("A:notes/n.md for first"),
      Either.right("A:notes/n.md for first"),
      Either.right("B:notes/n.md for second"),
      Either.right("A:notes/n.md for first"),
      Either.right("A:notes/n.md for third")
    ])
    expect(log).toEqual([
      "A writeText notes/n.md",
      "A writeText notes/n.md",
      "B writeText notes/n.md",
      "A writeText notes/n.md",
      "A writeText notes/n.md"
    ])
  })

  it("keeps each tool's OwnStore confined to its own storage, whichever tool ran first in that context", async () => {
    const log: Array<string> = []
    const context = contextOf(recordingStore("A", log), "caller")
    const notes = tool("notes")
    const jobs = tool("jobs")
    expect(await run(withOwnStore(notes, writeThrough("notes/n.md")), context)).toEqual(
      Either.right("A:notes/n.md for caller")
    )
    const refused = await run(withOwnStore(jobs, writeThrough("notes/n.md")), context)
    expect(Either.isLeft(refused) && refused.left.code).toBe("PROTECTED_PATH")
    expect(await run(withOwnStore(jobs, writeThrough("jobs/j.json")), context)).toEqual(
      Either.right("A:jobs/j.json for caller")
    )
    const stillRefused = await run(withOwnStore(notes, writeThrough("jobs/j.json")), context)
    expect(Either.isLeft(stillRefused) && stillRefused.left.code).toBe("PROTECTED_PATH")
    expect(log).toEqual(["A writeText notes/n.md", "A writeText jobs/j.json"])
  })

  it("a service the tool's effect provides itself still wins inside it", async () => {
    const context = contextOf(recordingStore("A", []), "outer")
    const inner = Effect.provideService(writeThrough("notes/n.md"), Caller, "inner")
    expect(await run(withOwnStore(tool("notes"), inner), context)).toEqual(Either.right("A:notes/n.md for inner"))
    expect(await run(withOwnStore(tool("notes"), writeThrough("notes/n.md")), context)).toEqual(
      Either.right("A:notes/n.md for outer")
    )
  })
})
