/**
 * A narrow view of a service: the members a list names, the same functions, nothing else reachable. The
 * reading halves (HostReads, ProcessReads, BrowserReads, WorkerReads) and the kernel-owned writes
 * (BrowserSessions, RunControl) are each one list, from which both their type and their value follow.
 *
 * @example
 *   export const WORKER_READS = ["alive"] as const
 *   type WorkerReadsShape = Pick<RunWorkersShape, (typeof WORKER_READS)[number]>
 *   narrowLayer(WorkerReads, RunWorkers, WORKER_READS)
 */
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export const membersOf = <S, K extends keyof S>(service: S, keys: ReadonlyArray<K>): Pick<S, K> => {
  const picked: Partial<Pick<S, K>> = {}
  for (const key of keys) picked[key] = service[key]
  return picked as Pick<S, K>
}

/** The layer of a narrow service: `narrow` is `keys` of the service `source` provides. */
export const narrowLayer = <NI, SI, S, K extends keyof S>(
  narrow: Context.Tag<NI, Pick<S, K>>,
  source: Context.Tag<SI, S>,
  keys: ReadonlyArray<K>
): Layer.Layer<NI, never, SI> =>
  Layer.effect(
    narrow,
    Effect.map(source, (service) => membersOf(service, keys))
  )
