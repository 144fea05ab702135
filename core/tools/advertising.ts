/**
 * One advertising pass: when the runtime starts, it decides how this host advertises each tool (a tool's
 * `advertise`, core/tools/Tool.ts) in one pass with a fresh memo. A host fact several tools read while
 * advertising (the four Workspaces tools each read git's and gh's support, three to five processes) is read
 * once per pass through `onceWhileAdvertising`; outside the pass (a call) the effect runs every time, so a
 * call still reads the host as it is now.
 */
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"

/** The memo of the pass in progress (undefined outside one). */
export const AdvertisingMemo = FiberRef.unsafeMake<Map<string, Effect.Effect<unknown, unknown>> | undefined>(undefined)

/** Runs `pass` with a fresh memo. */
export const advertisingPass = <A, E, R>(pass: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.locally(pass, AdvertisingMemo, new Map())

/** `effect`, run once per advertising pass under `key` (its outcome shared); outside a pass, every time. */
export const onceWhileAdvertising = <A, E, R>(key: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(FiberRef.get(AdvertisingMemo), (memo) => {
    if (memo === undefined) return effect
    const known = memo.get(key) as Effect.Effect<A, E> | undefined
    if (known !== undefined) return known
    return Effect.flatMap(Effect.exit(effect), (exit) => {
      memo.set(key, exit)
      return exit
    })
  })
