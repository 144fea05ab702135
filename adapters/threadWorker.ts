/**
 * A search pool worker (adapters/workerPool.ts) as a `node:worker_threads` Worker, on Node and on Deno
 * (whose node: compatibility runs it on its own Web Workers). Unlike a Deno Web Worker it can be unref'd,
 * so an idle pool stays warm without keeping the process alive: starting four workers costs a search
 * about 270 ms, a warm pool about 1 ms (docs/INSPECT.md, "Search on the Deno host").
 */
import { Worker } from "node:worker_threads"
import type { PoolWorker } from "./workerPool.ts"

/** Makes worker threads running the script at `url` (the inlined searchWorker.js as a data: URL). */
export const threadWorker =
  (url: URL) =>
  (dead: () => void): PoolWorker => {
    const worker = new Worker(url)
    worker.on("error", dead)
    return {
      postMessage: (message) => worker.postMessage(message),
      listen: (onMessage, onError) => {
        worker.on("message", onMessage)
        worker.on("error", onError)
        return () => {
          worker.off("message", onMessage)
          worker.off("error", onError)
        }
      },
      ref: () => worker.ref(),
      unref: () => worker.unref(),
      terminate: () => worker.terminate().then(() => undefined)
    }
  }
