/**
 * Properties of the Workspaces integration (issue 13 "properties"), the one file for them:
 * - a receipt's state never goes from a settled state back (nor backwards at all) under any sequence of
 *   advances, and only the needs_confirmation -> unknown step (the intent, written before the effect) can
 *   admit an effect; through the registry, no sequence of calls with one request id runs the effect twice;
 * - chunked PR text concatenates to the exact text for any text and chunk size, with dense indices;
 * - paging any view with any limit yields every entry exactly once, in order, through the registry: changes,
 *   stashes, branches, history, pull_requests, pull_request's description_chunks, pull_request_diff's
 *   file_list and unified_diff_chunks (the PR views with the real gh against the loopback stand-in in
 *   GitHub's REST format, spec/workspaces/ghRest.ts);
 * - a read_snapshot from before a change of its view is refused (SNAPSHOT_STALE), and accepted without one.
 * Run counts go through properties/runs.ts and stay small: every registry run is real git and gh.
 */
import { execFileSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Either from "effect/Either"
import fc from "fast-check"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { preprocess } from "../core/gate/preprocess.ts"
import { chunkText, DESCRIPTION_CHUNK_CHARS, DIFF_CHUNK_CHARS } from "../core/tools/workspaces/prs.ts"
import { advance, canAdvance, type Receipt, type ReceiptState, SETTLED } from "../core/tools/workspaces/receipt.ts"
import { restPull, useRestServer } from "../spec/workspaces/ghRest.ts"
import { makeTempDir, openWorkspace, type TempWorkspace } from "../spec/support/workspace.ts"
import { data, git, initRepo } from "../spec/vcs/support.ts"
import { runs } from "./runs.ts"

const SEED = 20261201
const STATES: ReadonlyArray<ReceiptState> = ["needs_confirmation", "unknown", "succeeded", "failed"]
const RANK: Record<ReceiptState, number> = { needs_confirmation: 0, unknown: 1, succeeded: 2, failed: 2 }

const fresh = (): Receipt => ({
  version: 1,
  requestId: "00000000-0000-8000-8000-000000000000",
  action: "push",
  inputs: {},
  inputsHash: "h",
  context: { contextId: "c", branch: "main", head: null, tree: "t" },
  state: "needs_confirmation",
  phases: { local_applied: null, published: null, reloaded: null },
  expect: {},
  history: [{ state: "needs_confirmation", at: "0" }],
  createdAt: "0",
  updatedAt: "0"
})

describe("receipt state machine", () => {
  it("a receipt's state machine never goes from a settled state back, never backwards, and admits an effect at most once: any sequence of transitions", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...STATES), { maxLength: 30 }), (steps) => {
        let receipt = fresh()
        let admitted = 0
        for (const to of steps) {
          const before = receipt.state
          const next = advance(receipt, to, "1")
          if (Either.isRight(next)) {
            expect(SETTLED.includes(before)).toBe(false)
            expect(RANK[to]).toBeGreaterThan(RANK[before])
            expect(next.right.history.length).toBe(receipt.history.length + 1)
            if (before === "needs_confirmation" && to === "unknown") admitted++
            receipt = next.right
          } else {
            expect(canAdvance(before, to)).toBe(false)
            expect(before === to || RANK[to] <= RANK[before] || SETTLED.includes(before)).toBe(true)
          }
          if (SETTLED.includes(before)) expect(receipt.state).toBe(before)
        }
        // The interpreter runs the effect only right after the needs_confirmation -> unknown intent.
        expect(admitted).toBeLessThanOrEqual(1)
        const ranks = receipt.history.map((entry) => RANK[entry.state])
        expect([...ranks].sort((a, b) => a - b)).toEqual(ranks)
      }),
      { seed: SEED, numRuns: runs(1000) }
    )
  })

  it("chunks concatenated in index order are the exact text, for any text and chunk size", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "b", "\n", "é", "😀", " "), maxLength: 3000 }),
        fc.integer({ min: 2, max: 500 }),
        (text, size) => {
          const chunks = chunkText(text, size)
          expect(chunks.map((chunk) => chunk.text).join("")).toBe(text)
          chunks.forEach((chunk, i) => {
            expect(chunk.index).toBe(i)
            expect(chunk.text.length).toBeGreaterThan(0)
            expect(chunk.text.length).toBeLessThanOrEqual(size)
            expect(/[\ud800-\udbff]$/.test(chunk.text)).toBe(false)
          })
        }
      ),
      { seed: SEED, numRuns: runs(300) }
    )
  })
})

// Through the registry ------------------------------------------------------------------------------

const gh = useRestServer({ beforeAll, afterAll, beforeEach })

const COUNT = 70
const pad = (i: number) => String(i).padStart(3, "0")

interface Fixture {
  readonly root: string
  readonly ws: TempWorkspace
}
let fixture: Fixture | undefined
const dirs: Array<string> = []
afterAll(async () => {
  await fixture?.ws.dispose()
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
})

/**
 * One working copy for every registry property (built once: real git is slow): 12 stashes, COUNT branches,
 * COUNT commits, COUNT untracked files, and the stand-in as its GitHub remote.
 */
const workingCopy = async (): Promise<Fixture> => {
  if (fixture !== undefined) return fixture
  const root = await makeTempDir("aw-prop-ws-")
  dirs.push(root)
  initRepo(root)
  git(root, "remote", "add", "origin", gh.server().remoteUrl)
  for (let i = 0; i < 12; i++) {
    fs.writeFileSync(path.join(root, "a.txt"), `stash ${i}\n`)
    git(root, "stash", "push", "-q", "-m", `s${i}`)
  }
  const head = git(root, "rev-parse", "HEAD").trim()
  execFileSync("git", ["update-ref", "--stdin"], {
    cwd: root,
    input: Array.from({ length: COUNT }, (_, i) => `create refs/heads/b${pad(i)} ${head}\n`).join(""),
    stdio: ["pipe", "ignore", "pipe"]
  })
  for (let i = 0; i < COUNT; i++) git(root, "commit", "-q", "--allow-empty", "-m", `c${i}`)
  for (let i = 0; i < COUNT; i++) fs.writeFileSync(path.join(root, `f${pad(i)}.txt`), `${i}\n`)
  const ws = await openWorkspace({}, root)
  fixture = { root, ws }
  return fixture
}

const BODY = Array.from({ length: 40 }, (_, i) => `${"Paragraph ".repeat(150)}${i}\n`).join("")
const PATCH = `@@ -0,0 +1,${COUNT * 40} @@\n${Array.from({ length: COUNT * 40 }, (_, i) => `+line ${i} ${"x".repeat(i % 90)}`).join("\n")}`

/** The stand-in's pulls: COUNT open ones; #1 has a long description and COUNT files, the first with a long patch. */
const addPulls = () => {
  const server = gh.server()
  server.pulls.splice(0)
  for (let n = 1; n <= COUNT; n++) server.pulls.push(restPull(n))
  server.pulls[0]!.body = BODY
  server.pulls[0]!.files = Array.from({ length: COUNT }, (_, i) => ({
    filename: `src/file${pad(i)}.ts`,
    status: "modified",
    additions: 1,
    deletions: 1,
    patch: i === 0 ? PATCH : "@@ -1 +1 @@\n-a\n+b"
  }))
}

type View =
  | "changes"
  | "stashes"
  | "branches"
  | "history"
  | "pull_requests"
  | "description_chunks"
  | "file_list"
  | "unified_diff_chunks"
const VIEWS: ReadonlyArray<View> = [
  "changes",
  "stashes",
  "branches",
  "history",
  "pull_requests",
  "description_chunks",
  "file_list",
  "unified_diff_chunks"
]

const contextOf = async (ws: TempWorkspace) => data(await ws.call("get_workspace_status", {}))["context_id"] as string

/** The read_workspace arguments of a view (the diff's path read carries the file list's snapshot). */
const argsOf = async (ws: TempWorkspace, view: View): Promise<Record<string, unknown>> => {
  const context_id = await contextOf(ws)
  switch (view) {
    case "description_chunks":
      return { context_id, view: "pull_request", pull_request_number: 1 }
    case "file_list":
      return { context_id, view: "pull_request_diff", pull_request_number: 1 }
    case "unified_diff_chunks":
      return { context_id, view: "pull_request_diff", pull_request_number: 1, path: "src/file000.ts", side: "source" }
    default:
      return { context_id, view }
  }
}

/** What one page lists, as comparable strings. */
const itemsOf = (view: View, page: Record<string, any>): Array<string> => {
  switch (view) {
    case "changes":
      return page["entries"].map((entry: any) => entry.path)
    case "stashes":
      return page["entries"].map((entry: any) => entry.stash_id)
    case "branches":
      return page["entries"].map((entry: any) => `${entry.kind}:${entry.name}`)
    case "history":
      return page["entries"].map((entry: any) => entry.commit)
    case "pull_requests":
      return page["entries"].map((entry: any) => String(entry.number))
    case "description_chunks":
      return page["description_chunks"].map((chunk: any) => `${chunk.index}:${chunk.text}`)
    case "file_list":
      return page["file_list"].map((file: any) => file.path)
    case "unified_diff_chunks":
      return page["unified_diff_chunks"].map((chunk: any) => `${chunk.index}:${chunk.text}`)
  }
}

/** The text a chunked view pages (the description of #1, the patch of its first file). */
const textOf = (view: View): string | undefined => {
  const first = gh.server().pulls.find((pull) => pull.number === 1)!
  if (view === "description_chunks") return first.body ?? ""
  if (view === "unified_diff_chunks") return first.files[0]!.patch!
  return undefined
}

/** Every entry of a view, read independently of the tool (git itself, the stand-in's state, the texts). */
const oracle = (root: string, view: View): Array<string> => {
  const lines = (text: string) => text.split("\n").filter((line) => line !== "")
  const chunks = (text: string, size: number) => chunkText(text, size).map((chunk) => `${chunk.index}:${chunk.text}`)
  switch (view) {
    case "changes":
      return lines(git(root, "ls-files", "--others", "--exclude-standard", "-z").replaceAll("\0", "\n")).sort()
    case "stashes":
      return lines(git(root, "stash", "list", "--format=%H"))
    case "branches":
      return lines(
        git(root, "for-each-ref", "--format=%(refname)", "refs/heads", "refs/remotes").replace(
          /^refs\/(heads|remotes)\/.*\/HEAD$/gm,
          ""
        )
      ).map((ref) => (ref.startsWith("refs/heads/") ? `local:${ref.slice(11)}` : `remote:${ref.slice(13)}`))
    case "history":
      return lines(git(root, "log", "--format=%H", "main"))
    case "pull_requests":
      return gh
        .server()
        .pulls.filter((pull) => pull.state === "open")
        .map((pull) => pull.number)
        .sort((a, b) => b - a)
        .map(String)
    case "description_chunks":
      return chunks(textOf("description_chunks")!, DESCRIPTION_CHUNK_CHARS)
    case "file_list":
      return gh
        .server()
        .pulls.find((pull) => pull.number === 1)!
        .files.map((file) => file.filename)
    case "unified_diff_chunks":
      return chunks(textOf("unified_diff_chunks")!, DIFF_CHUNK_CHARS)
  }
}

/** Reads every page of a view at `limit` through next_offset=null, carrying read_snapshot. */
const readAll = async (ws: TempWorkspace, view: View, limit: number) => {
  const args = await argsOf(ws, view)
  const seen: Array<string> = []
  let offset: number | null = 0
  let snapshot: string | undefined
  let pages = 0
  while (offset !== null) {
    const page = await ws.call("read_workspace", {
      ...args,
      offset,
      limit,
      ...(snapshot === undefined ? {} : { read_snapshot: snapshot })
    })
    expect(page.ok, JSON.stringify(page.error)).toBe(true)
    const d = data(page)
    if (snapshot !== undefined) expect(d["read_snapshot"]).toBe(snapshot)
    snapshot = d["read_snapshot"]
    expect(d["offset"]).toBe(offset)
    const items = itemsOf(view, d)
    expect(items.length).toBeLessThanOrEqual(limit)
    seen.push(...items)
    offset = d["next_offset"]
    if (offset !== null) expect(items.length).toBe(limit)
    pages++
    expect(pages).toBeLessThanOrEqual(COUNT * 40)
  }
  return seen
}

describe("paging and snapshots through the registry", () => {
  it("paging any view with any limit yields every entry exactly once, in order: changes, stashes, branches, history, pull_requests, description_chunks, file_list, unified_diff_chunks", async () => {
    const { ws, root } = await workingCopy()
    addPulls()
    const checked = new Set<View>()
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...VIEWS), fc.integer({ min: 1, max: 64 }), async (view, limit) => {
        const expected = oracle(root, view)
        expect(expected.length).toBeGreaterThan(1)
        const seen = await readAll(ws, view, limit)
        expect(seen).toEqual(expected)
        // Chunks concatenated in index order are the exact text.
        const text = textOf(view)
        if (text !== undefined) expect(seen.map((item) => item.slice(item.indexOf(":") + 1)).join("")).toBe(text)
        checked.add(view)
      }),
      {
        seed: SEED,
        numRuns: runs(8),
        // Each view once at the largest limit, whatever the random runs pick (they add small and middling ones).
        examples: VIEWS.map((view) => [view, 64] as [View, number])
      }
    )
    expect([...checked].sort()).toEqual([...VIEWS].sort())
  }, 900_000)

  it("a snapshot from before a change is refused: for any view, limit and change of that view, the old read_snapshot fails SNAPSHOT_STALE at the next page; unchanged, it is accepted", async () => {
    const { ws, root } = await workingCopy()
    addPulls()
    let k = 0
    /** One change of each view's enumeration. */
    const change = (view: View) => {
      k++
      const server = gh.server()
      const first = server.pulls.find((pull) => pull.number === 1)!
      switch (view) {
        case "changes":
          return fs.writeFileSync(path.join(root, `n${k}.txt`), "new\n")
        case "stashes":
          fs.writeFileSync(path.join(root, "a.txt"), `stash more ${k}\n`)
          return git(root, "stash", "push", "-q", "-m", `more ${k}`)
        case "branches":
          return git(root, "branch", `new${k}`)
        case "history":
          return git(root, "commit", "-q", "--allow-empty", "-m", `more ${k}`)
        case "pull_requests":
          return server.pulls.push(restPull(1000 + k))
        case "description_chunks":
          first.body = `${first.body ?? ""}edited ${k}\n`
          return
        case "file_list":
        case "unified_diff_chunks":
          first.head.sha = (1_000_000 + k).toString(16).padStart(40, "0")
          return
      }
    }
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...VIEWS), fc.integer({ min: 1, max: 16 }), async (view, limit) => {
        const args = await argsOf(ws, view)
        const first = await ws.call("read_workspace", { ...args, limit })
        expect(first.ok, JSON.stringify(first.error)).toBe(true)
        const snapshot = data(first)["read_snapshot"] as string
        const next = { ...args, offset: limit, limit, read_snapshot: snapshot }
        expect((await ws.call("read_workspace", next)).ok).toBe(true)
        change(view)
        // The context follows the working copy (a save or a commit makes the old one stale); the snapshot is the point.
        const again = await ws.call("read_workspace", { ...next, context_id: await contextOf(ws) })
        expect(again.error?.code, `${view} after a change`).toBe("SNAPSHOT_STALE")
      }),
      { seed: SEED, numRuns: runs(8), examples: VIEWS.map((view) => [view, 3] as [View, number]) }
    )
  }, 900_000)

  it("no sequence of calls with one request id runs the effect twice: any interleaving of repeated calls, confirmations, receipt reads and status reads sends pr_create's POST at most once, and a settled receipt never changes", async () => {
    const { ws } = await workingCopy()
    addPulls()
    const Step = fc.constantFrom("call", "accept", "operation", "status", "call-stale-context")
    let run = 0
    await fc.assert(
      fc.asyncProperty(fc.array(Step, { minLength: 1, maxLength: 7 }), async (steps) => {
        run++
        const server = gh.server()
        const posts = () =>
          server.requests.filter(
            (request) => request.method === "POST" && request.body.includes(`"head":"prop-${run}"`)
          ).length
        const args = {
          action: "pr_create",
          context_id: await contextOf(ws),
          request_id: randomUUID(),
          title: `Property ${run}`,
          body: "",
          base: "main",
          head: `prop-${run}`
        }
        let approval: string | undefined
        let settled: string | undefined
        for (const step of steps) {
          if (step === "call" || step === "call-stale-context") {
            const result = await ws.call(
              "workspace_action",
              step === "call" ? args : { ...args, context_id: randomUUID() }
            )
            if (result.ok && data(result)["status"] === "needs_confirmation")
              approval = data(result)["approval"]?.["id"] ?? approval
          } else if (step === "accept" && approval !== undefined) {
            await ws.run(preprocess(`/accept ${approval}`))
          } else if (step === "operation") {
            await ws.call("get_workspace_operation", { request_id: args.request_id })
          } else if (step === "status") {
            await ws.call("get_workspace_status", {})
          }
          expect(posts()).toBeLessThanOrEqual(1)
          const read = await ws.call("get_workspace_operation", { request_id: args.request_id })
          if (read.ok) {
            const state = data(read)["state"] as string
            if (settled !== undefined) expect(state).toBe(settled)
            if (state === "succeeded" || state === "failed") settled = state
            if (state !== "needs_confirmation") expect(posts()).toBe(1)
          } else expect(posts()).toBe(0)
        }
      }),
      { seed: SEED, numRuns: runs(8), examples: [[["call", "accept", "call", "call", "accept", "call"]]] }
    )
  }, 900_000)
})
