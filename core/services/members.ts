/**
 * A narrow view of a service: the members a list names, the same functions, nothing else reachable. The
 * reading halves (HostReads, ProcessReads, BrowserReads, WorkerReads) and the kernel-owned writes
 * (BrowserSessions, RunControl) are each one list, from which both their type and their value follow.
 *
 * @example
 *   export const WORKER_READS = ["alive"] as const
 *   type WorkerReadsShape = Pick<RunWorkersShape, (typeof WORKER_READS)[number]>
 *   Layer.effect(WorkerReads, Effect.map(RunWorkers, (workers) => membersOf(workers, WORKER_READS)))
 */
export const membersOf = <S, K extends keyof S>(service: S, keys: ReadonlyArray<K>): Pick<S, K> => {
  const picked: Partial<Pick<S, K>> = {}
  for (const key of keys) picked[key] = service[key]
  return picked as Pick<S, K>
}
