/**
 * Progress of long work (issue 18): a tool reports how far it is, and whoever runs the call (the MCP
 * server for a client that sent a progress token, the LM Studio plugin's status line, an embedder's
 * `onProgress`) hears it. A FiberRef, not a service: a call without a listener pays nothing and no host
 * layer has to provide it.
 */
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"

/** One report: `progress` grows with each report of a call; `total` when the tool knows the end. */
export interface ProgressUpdate {
  readonly progress: number
  readonly total?: number
  readonly message: string
}

/** The listener of the call running on this fiber (none by default). */
export const CurrentProgress: FiberRef.FiberRef<((update: ProgressUpdate) => void) | undefined> = FiberRef.unsafeMake<
  ((update: ProgressUpdate) => void) | undefined
>(undefined)

/** Reports progress to the call's listener, if any; never fails. */
export const reportProgress = (update: ProgressUpdate): Effect.Effect<void> =>
  Effect.flatMap(FiberRef.get(CurrentProgress), (listen) =>
    listen === undefined
      ? Effect.void
      : Effect.sync(() => {
          try {
            listen(update)
          } catch {
            // A listener's failure is not the tool's.
          }
        })
  )

/** Whether the running call has a listener (so a tool can skip counting work nobody reads). */
export const hasProgressListener: Effect.Effect<boolean> = Effect.map(
  FiberRef.get(CurrentProgress),
  (listen) => listen !== undefined
)

/** Runs `effect` with `listen` hearing its progress. */
export const withProgress =
  (listen: (update: ProgressUpdate) => void) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.locally(effect, CurrentProgress, listen)
