/**
 * Issue 19 item 6, docs/INSPECT.md "Memory during a search": "the pool's workers stop once no search has
 * run for SEARCH_WORKERS_IDLE_MS (30 s); the next search starts new ones". Real worker threads over a
 * temp dir, with a short idle time; the threads are seen through Node's `worker` event and their `exit`.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import type { Worker } from "node:worker_threads"
import * as Effect from "effect/Effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeNodeSearch, SEARCH_WORKERS_IDLE_MS } from "../../adapters/node/NodeSearch.ts"
import { literalGrep } from "../support/grep.ts"
import { makeTempDir } from "../support/workspace.ts"

let root: string
beforeAll(async () => {
  root = await makeTempDir("aw-pool-idle-")
  for (let file = 0; file < 600; file++)
    await fs.writeFile(path.join(root, `f${String(file).padStart(3, "0")}.txt`), `line\nneedle ${file}\n`)
})
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true })
})

const options = literalGrep("needle")

/** The worker threads started while `run` runs. */
const started = async (run: () => Promise<unknown>) => {
  const workers: Array<Worker> = []
  const onWorker = (worker: Worker) => workers.push(worker)
  process.on("worker", onWorker)
  try {
    await run()
  } finally {
    process.off("worker", onWorker)
  }
  return workers
}

const exited = (worker: Worker) => new Promise<void>((resolve) => worker.once("exit", () => resolve()))

describe("search pool: idle workers stop", () => {
  it("the default idle time is 30 s", () => {
    expect(SEARCH_WORKERS_IDLE_MS).toBe(30_000)
  })

  it("the workers stop once no search has run for the idle time; the next search starts new ones and answers the same", async () => {
    const search = makeNodeSearch(root, 2, undefined, "walk", undefined, 200)
    try {
      let first: unknown
      const workers = await started(async () => {
        first = await Effect.runPromise(search.grep(options))
      })
      expect(workers).toHaveLength(2)
      expect((first as { matches: ReadonlyArray<unknown> }).matches).toHaveLength(600)
      const stopped = Promise.all(workers.map(exited))
      // A search within the idle time keeps (and reuses) the same workers.
      const reused = await started(() => Effect.runPromise(search.grep(options)))
      expect(reused).toHaveLength(0)
      await stopped
      let again: unknown
      const fresh = await started(async () => {
        again = await Effect.runPromise(search.grep(options))
      })
      expect(fresh).toHaveLength(2)
      expect(again).toStrictEqual(first)
    } finally {
      await search.close()
    }
  }, 30_000)
})
