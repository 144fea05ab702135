/**
 * The pool of search workers behind adapters/workerSearch.ts: a few workers (Node worker threads, Deno Web
 * Workers) running adapters/node/searchWorker.js, fed batches of files in path order, so the result cap keeps
 * exactly the first matches. Host-free: no node: import, no Deno global.
 */
import type { GrepMatch, GrepOptions } from "../core/services/Search.ts"
import { defined } from "../core/text/defined.ts"

/**
 * One worker of the pool, as the host makes it. `listen` attaches the handlers of one search (and
 * returns their removal); `ref`/`unref` say whether an idle worker may keep the process alive.
 */
export interface PoolWorker {
  readonly postMessage: (message: unknown) => void
  readonly listen: (onMessage: (reply: unknown) => void, onError: (error: Error) => void) => () => void
  readonly ref: () => void
  readonly unref: () => void
  readonly terminate: () => Promise<void>
}

/** One event-loop turn later (Node and Deno both have setImmediate; the types of Deno's globals do not declare it). */
const nextTurn: (callback: () => void) => void =
  (globalThis as { setImmediate?: (callback: () => void) => void }).setImmediate ??
  ((callback) => setTimeout(callback, 0))

/** Makes a worker; `dead` is called when it fails while idle (it then leaves the pool). */
export type SpawnWorker = (dead: () => void) => PoolWorker

/**
 * What a worker answers for a batch (searchWorker.js replyOf): the matches in flat columns, each file with
 * matches once in `paths` with its count in `counts`, then per match its line, column and text; `extras`
 * (by match index, in order) holds what few matches add. Cloning a few arrays costs a fraction of an
 * object per match, on both threads.
 */
export interface BatchReply {
  readonly id: number
  readonly paths: ReadonlyArray<string>
  readonly counts: ReadonlyArray<number>
  readonly lines: Int32Array
  readonly columns: Int32Array
  readonly texts: ReadonlyArray<string>
  readonly extras: ReadonlyArray<{
    readonly at: number
    readonly clipped?: true
    readonly before?: ReadonlyArray<string>
    readonly after?: ReadonlyArray<string>
  }>
  readonly tooLarge: ReadonlyArray<string>
  readonly unreadable: ReadonlyArray<string>
  readonly searched: number
  readonly binary: number
}

/**
 * One batch of files for a worker: workspace-relative names (the worker joins them to the root it is
 * sent, so the pool holds and posts one string per file, not two), or one text already read.
 */
export interface Batch {
  readonly rels: Array<string>
  readonly text?: string
}

/** What every batch of one search is searched with. */
export type PoolJob = Omit<GrepOptions, "base" | "includeIgnored" | "excludes" | "include"> & { readonly root: string }

/** Told after each reply: files searched so far, files listed so far, whether the listing is complete. */
export type OnBatch = (filesDone: number, filesKnown: number, known: boolean) => void

/** The answer of one search: the replies (in batch order), whether the cap cut it, the files never searched. */
export interface PoolAnswer {
  readonly replies: Array<BatchReply>
  readonly capped: boolean
  readonly unanswered: Array<string>
}

/** How far the producer may run ahead of the workers (batches queued, not yet dispatched). */
const AHEAD = 32

/**
 * Batches a worker holds at once: the one it searches and the next, already in its queue, so it never
 * waits for this thread between two batches (a reply, the producer or a collection may hold it).
 */
const DEPTH = 2

/** Appends a reply's matches to `out` as GrepMatch objects, up to `limit` in all. */
export const appendMatches = (reply: BatchReply, out: Array<GrepMatch>, limit: number) => {
  let at = 0
  let extra = 0
  for (let file = 0; file < reply.paths.length; file++) {
    const path = reply.paths[file]!
    for (const end = at + reply.counts[file]!; at < end; at++) {
      if (out.length >= limit) return
      const more = reply.extras[extra]
      if (more === undefined || more.at !== at) {
        out.push({ path, line: reply.lines[at]!, column: reply.columns[at]!, text: reply.texts[at]! })
        continue
      }
      extra++
      out.push({
        path,
        line: reply.lines[at]!,
        column: reply.columns[at]!,
        text: reply.texts[at]!,
        ...(more.clipped === true ? { clipped: true } : {}),
        ...(more.before === undefined ? {} : { before: more.before, after: more.after ?? [] })
      })
    }
  }
}

/** How one search ends: its promise's settlers, and the pool's hand-over of its workers when they must go. */
interface Settle {
  readonly resolve: (answer: PoolAnswer) => void
  readonly reject: (error: Error) => void
  /** Takes every worker out of the pool (the next search starts fresh ones) and returns them. */
  readonly evict: () => ReadonlyArray<PoolWorker>
}

/**
 * One search over the pool's workers: batches pulled from `next` in path order, the producer at most AHEAD
 * batches ahead, each worker holding up to DEPTH batches, stopped once the completed prefix reaches the cap.
 */
class PoolSearch {
  private timer: ReturnType<typeof setTimeout> | undefined
  private readonly batches: Array<Batch> = []
  private readonly replies: Array<BatchReply | undefined> = []
  private readonly queue: Array<Batch> = []
  /** A worker once for each batch it could take now (up to DEPTH at once). */
  private readonly idle: Array<PoolWorker> = []
  private readonly detach: Array<() => void> = []
  private exhausted = false
  private inFlight = 0
  private prefix = 0
  private prefixMatches = 0
  private filesDone = 0
  private filesKnown = 0
  private stopped = false
  private settled = false
  private producing = false

  constructor(
    private readonly workers: ReadonlyArray<PoolWorker>,
    private readonly next: () => Batch | undefined,
    private readonly job: PoolJob,
    private readonly onBatch: OnBatch | undefined,
    private readonly settle: Settle
  ) {}

  /** Arms the timeout, attaches to every worker, fills their queues and starts producing ahead. */
  start() {
    const { timeoutMs } = this.job
    if (timeoutMs !== undefined) this.timer = setTimeout(() => this.timeOut(), timeoutMs)
    for (const worker of this.workers) {
      worker.ref()
      this.detach.push(
        worker.listen(
          (reply) => this.onMessage(worker, reply as BatchReply),
          (error) => this.onError(error)
        )
      )
    }
    for (let slot = 0; slot < DEPTH; slot++) for (const worker of this.workers) this.release(worker)
    if (!this.settled) this.schedule()
  }

  private pull(): Batch | undefined {
    if (this.exhausted) return undefined
    const batch = this.next()
    if (batch === undefined) this.exhausted = true
    else this.filesKnown += batch.rels.length
    return batch
  }

  private take() {
    return this.queue.shift() ?? this.pull()
  }

  private cleanup() {
    for (const off of this.detach.splice(0)) off()
    for (const worker of this.workers) worker.unref()
  }

  private finish() {
    if (this.settled) return
    this.settled = true
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.cleanup()
    // Stopped at the cap with candidates left: capped. Exactly at the end of the candidates: not.
    const more =
      this.stopped && (this.prefix < this.batches.length || this.queue.length > 0 || this.pull() !== undefined)
    this.settle.resolve({
      replies: this.replies.slice(0, this.prefix) as Array<BatchReply>,
      capped: more,
      unanswered: []
    })
  }

  private dispatch(worker: PoolWorker): boolean {
    if (this.stopped || this.settled) return false
    const batch = this.take()
    if (batch === undefined) return false
    const id = this.batches.length
    this.batches.push(batch)
    this.inFlight++
    worker.postMessage({ ...this.job, id, rels: batch.rels, ...defined({ text: batch.text }) })
    return true
  }

  private release(worker: PoolWorker) {
    if (!this.dispatch(worker)) {
      this.idle.push(worker)
      if (this.inFlight === 0 && (this.stopped || (this.exhausted && this.queue.length === 0))) this.finish()
    }
  }

  /** Produces ahead while the workers are busy: one batch per turn, so replies are handled between. */
  private produce() {
    this.producing = false
    if (this.settled || this.stopped || this.exhausted || this.queue.length >= AHEAD) return
    const batch = this.pull()
    if (batch !== undefined) this.queue.push(batch)
    while (this.idle.length > 0 && this.queue.length > 0) this.dispatch(this.idle.shift()!)
    if (this.inFlight === 0 && this.exhausted && this.queue.length === 0) return this.finish()
    this.schedule()
  }

  private schedule() {
    if (this.producing || this.settled || this.stopped || this.exhausted || this.queue.length >= AHEAD) return
    this.producing = true
    nextTurn(() => this.produce())
  }

  /** Past the timeout: every worker is terminated; the answer holds the batches that replied. */
  private timeOut() {
    if (this.settled) return
    this.settled = true
    this.cleanup()
    for (const worker of this.settle.evict()) void worker.terminate()
    const answered = this.replies.filter((reply): reply is BatchReply => reply !== undefined)
    const unanswered = this.batches.flatMap((batch, id) => (this.replies[id] === undefined ? batch.rels : []))
    for (const batch of this.queue) unanswered.push(...batch.rels)
    for (let batch = this.pull(); batch !== undefined; batch = this.pull()) unanswered.push(...batch.rels)
    this.settle.resolve({ replies: answered, capped: false, unanswered })
  }

  private onMessage(worker: PoolWorker, reply: BatchReply) {
    if (this.settled) return
    this.inFlight--
    this.replies[reply.id] = reply
    this.filesDone += this.batches[reply.id]!.rels.length
    this.onBatch?.(this.filesDone, this.filesKnown, this.exhausted)
    while (this.prefix < this.batches.length && this.replies[this.prefix] !== undefined) {
      this.prefixMatches += this.replies[this.prefix]!.texts.length
      this.prefix++
    }
    if (this.prefixMatches >= this.job.maxMatches) this.stopped = true
    this.release(worker)
    this.schedule()
  }

  private onError(error: Error) {
    if (this.settled) return
    this.settled = true
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.cleanup()
    this.settle.evict()
    this.settle.reject(error)
  }
}

/** A small pool of search workers, created lazily, unref'd while idle, stopped after `idleMs` without a search. */
export class WorkerPool {
  private workers: Array<PoolWorker> = []
  /** Searches running now (each holds every worker). */
  private running = 0
  private idleTimer: ReturnType<typeof setTimeout> | undefined
  constructor(
    private readonly size: number,
    private readonly spawn: SpawnWorker,
    private readonly idleMs: number | undefined
  ) {}

  /** Stops the workers once no search has run for `idleMs` (their heaps and threads go with them). */
  private armIdle() {
    if (this.idleMs === undefined || this.running > 0 || this.workers.length === 0) return
    const timer = setTimeout(() => {
      if (this.idleTimer !== timer) return
      this.idleTimer = undefined
      if (this.running === 0) void this.terminate()
    }, this.idleMs)
    // The idle timer never keeps the process alive where timers can be unref'd (Node).
    ;(timer as { unref?: () => void }).unref?.()
    this.idleTimer = timer
  }

  private cancelIdle() {
    if (this.idleTimer === undefined) return
    clearTimeout(this.idleTimer)
    this.idleTimer = undefined
  }

  private ensure(): Array<PoolWorker> {
    if (this.workers.length === 0) {
      for (let index = 0; index < this.size; index++) {
        // A worker that fails while idle (or cannot start) must never be an uncaught error that ends the
        // host: it leaves the pool, and the next search starts fresh workers; a failure during a search
        // rejects that search (an envelope), below.
        const worker = this.spawn(() => {
          this.workers = this.workers.filter((candidate) => candidate !== worker)
        })
        worker.unref()
        this.workers.push(worker)
      }
    }
    return this.workers
  }

  /** Takes every worker out of the pool and returns them. */
  private evict(): ReadonlyArray<PoolWorker> {
    const gone = this.workers
    this.workers = []
    return gone
  }

  /**
   * Runs batches over the workers as `next` produces them (in path order), so the workers start while
   * the candidates are still being listed; the producer runs at most AHEAD batches ahead, one batch per
   * event-loop turn while every worker is busy. Dispatching stops once the cap is reached on the
   * completed prefix (the producer then stops too: the rest of the tree is never listed). Past
   * `timeoutMs` every worker is terminated (a regex cannot be interrupted any other way; the pool starts
   * fresh ones for the next search) and the answer holds the batches that did reply; the files of every
   * other batch, produced or not yet, are `unanswered`.
   */
  run(next: () => Batch | undefined, job: PoolJob, onBatch?: OnBatch): Promise<PoolAnswer> {
    this.cancelIdle()
    this.running++
    const done = () => {
      this.running--
      this.armIdle()
    }
    let searching: Promise<PoolAnswer>
    try {
      searching = this.search(next, job, onBatch)
    } catch (error) {
      // A worker that cannot even be made: the search fails as before, and the count stays true.
      done()
      throw error
    }
    return searching.then(
      (answer) => {
        done()
        return answer
      },
      (error: unknown) => {
        done()
        throw error
      }
    )
  }

  private search(next: () => Batch | undefined, job: PoolJob, onBatch: OnBatch | undefined): Promise<PoolAnswer> {
    const workers = this.ensure()
    return new Promise((resolve, reject) =>
      new PoolSearch(workers, next, job, onBatch, { resolve, reject, evict: () => this.evict() }).start()
    )
  }

  terminate(): Promise<void> {
    this.cancelIdle()
    const workers = this.evict()
    return Promise.all(workers.map((worker) => worker.terminate())).then(() => undefined)
  }
}
