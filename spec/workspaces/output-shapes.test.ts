/**
 * The field-by-field output audit (issue 13: the four tools' data use the reference's snake_case names
 * exactly, and item 8: model-facing output never carries absolute paths, credentials, tokens or remote
 * URLs with `user:pass@`). Every view's and every action's output, through the registry and the CLI, is
 * decoded against a Schema of the reference's shape with excess keys refused, so a renamed, added or
 * camelCased field fails here.
 */
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { preprocess } from "../../core/gate/preprocess.ts"
import type { Envelope } from "../../core/protocol/envelope.ts"
import { ActionFields, type BuiltAction } from "../../core/tools/workspaces/schema.ts"
import { makeTempDir, openWorkspace, runCli, type TempWorkspace } from "../support/workspace.ts"
import { addBareRemote, data, git, initRepo } from "../vcs/support.ts"
import { restPull, SPEC_TOKEN, useRestServer } from "./ghRest.ts"

const gh = useRestServer({ beforeAll, afterAll, beforeEach })

const S = Schema
const Sha = S.String.pipe(S.pattern(/^[0-9a-f]{40}$/))
const Uuid = S.String.pipe(S.pattern(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/))
const Snapshot = S.String.pipe(S.pattern(/^[0-9a-f]{64}$/))
const Count = S.Int.pipe(S.greaterThanOrEqualTo(0))
const Paging = {
  offset: Count,
  next_offset: S.NullOr(Count),
  complete: S.Boolean,
  read_snapshot: Snapshot
}
const Chunk = S.Struct({ index: Count, text: S.String })
const ReviewGap = S.Struct({ reason: S.Literal("unavailable", "oversized"), detail: S.String })

/** get_workspace_status's data. */
const StatusData = S.Struct({
  context_id: Uuid,
  project: S.String,
  branch: S.NullOr(S.String),
  head: S.NullOr(Sha),
  upstream: S.NullOr(S.String),
  ahead: S.NullOr(Count),
  behind: S.NullOr(Count),
  changes: S.Struct({
    total: Count,
    complete: S.Boolean,
    changed: S.optional(Count),
    renamed: S.optional(Count),
    unmerged: S.optional(Count),
    untracked: S.optional(Count)
  }),
  capabilities: S.Array(S.String)
})

const ChangesPage = S.Struct({
  view: S.Literal("changes"),
  entries: S.Array(
    S.Struct({
      path: S.String,
      kind: S.Literal("changed", "renamed", "unmerged", "untracked"),
      index: S.String,
      worktree: S.String,
      from: S.optional(S.String)
    })
  ),
  total: Count,
  ...Paging
})
const StashesPage = S.Struct({
  view: S.Literal("stashes"),
  entries: S.Array(S.Struct({ stash_id: Sha, ref: S.String, message: S.String })),
  total: Count,
  ...Paging
})
const BranchesPage = S.Struct({
  view: S.Literal("branches"),
  entries: S.Array(
    S.Struct({ name: S.String, kind: S.Literal("local", "remote"), head: Sha, upstream: S.NullOr(S.String) })
  ),
  total: Count,
  ...Paging
})
const HistoryPage = S.Struct({
  view: S.Literal("history"),
  branch: S.String,
  entries: S.Array(S.Struct({ commit: Sha, author: S.String, date: S.String, subject: S.String })),
  ...Paging
})
const PullRequestsPage = S.Struct({
  view: S.Literal("pull_requests"),
  repository: S.String,
  entries: S.Array(
    S.Struct({
      number: S.Int,
      title: S.String,
      state: S.String,
      draft: S.Boolean,
      author: S.NullOr(S.String),
      head: S.String,
      base: S.String,
      head_sha: Sha,
      updated_at: S.NullOr(S.String)
    })
  ),
  total: Count,
  ...Paging
})
const Side = S.Struct({ ref: S.String, sha: Sha, repository: S.NullOr(S.String) })
const PullRequestPage = S.Struct({
  view: S.Literal("pull_request"),
  pull_request: S.Struct({
    number: S.Int,
    title: S.String,
    state: S.String,
    draft: S.Boolean,
    merged: S.Boolean,
    mergeable: S.NullOr(S.Boolean),
    author: S.NullOr(S.String),
    head: Side,
    base: Side,
    created_at: S.NullOr(S.String),
    updated_at: S.NullOr(S.String),
    url: S.NullOr(S.String)
  }),
  description_chunks: S.Array(Chunk),
  total: Count,
  untrusted: S.Literal(true),
  ...Paging
})
const FileListPage = S.Struct({
  view: S.Literal("pull_request_diff"),
  pull_request_number: S.Int,
  base: Sha,
  head: Sha,
  file_list: S.Array(
    S.Struct({
      path: S.String,
      status: S.String,
      previous_path: S.optional(S.String),
      additions: S.NullOr(Count),
      deletions: S.NullOr(Count),
      review_gap: S.NullOr(ReviewGap)
    })
  ),
  total: Count,
  ...Paging
})
const DiffPage = S.Struct({
  view: S.Literal("pull_request_diff"),
  pull_request_number: S.Int,
  path: S.String,
  side: S.Literal("source", "target"),
  status: S.String,
  unified_diff_chunks: S.Array(Chunk),
  total: Count,
  review_gap: S.NullOr(ReviewGap),
  ...Paging
})

/** The staged first call of every action. */
const StagedData = S.Struct({
  status: S.Literal("needs_confirmation"),
  mode: S.Literal("manual", "plan", "auto"),
  approval: S.Struct({
    id: S.String,
    kind: S.Literal("vcs"),
    title: S.String,
    destructive: S.Boolean,
    resume: S.Struct({
      tool: S.Literal("workspace_action"),
      arguments: S.Record({ key: S.String, value: S.Unknown })
    })
  }),
  request_id: Uuid,
  action: S.String,
  guide: S.String,
  review: S.Struct({ argv: S.Array(S.String), refs: S.Array(S.String) })
})

const ReceiptState = S.Literal("needs_confirmation", "unknown", "succeeded", "failed")
const Reconciled = { reconciled: S.optional(S.Literal(true)) }
/** Every outcome an action records: one Struct per action and kind of ending, exact keys. */
const Outcome = S.Union(
  S.Struct({ commit: Sha, ...Reconciled }),
  S.Struct({ commit: Sha, remote: S.String, branch: S.String }),
  S.Struct({ noop: S.Literal(true), target: Sha }),
  S.Struct({ target: Sha, ...Reconciled }),
  S.Struct({ name: S.String, commit: Sha, ...Reconciled }),
  S.Struct({ name: S.String, park: S.NullOr(Sha) }),
  S.Struct({ name: S.String, ...Reconciled }),
  S.Struct({ name: S.String, tip: Sha, ...Reconciled }),
  S.Struct({ from: S.String, to: S.String, ...Reconciled }),
  S.Struct({ stash_id: Sha, ...Reconciled }),
  S.Struct({ pull_request_number: S.Int, url: S.NullOr(S.String), ...Reconciled }),
  S.Struct({ pull_request_number: S.Int, merge_commit: S.NullOr(Sha), ...Reconciled }),
  // Failures (state failed) and kept errors (state unknown): the code and message, plus what was kept.
  S.Struct({
    code: S.String,
    message: S.String,
    commit: S.optional(S.NullOr(Sha)),
    park: S.optional(S.NullOr(Sha)),
    target: S.optional(Sha),
    status: S.optional(S.Int),
    stash_kept: S.optional(S.Literal(true))
  })
)
const Flat = S.Union(S.String, S.Number, S.Boolean, S.Null)
/** get_workspace_operation's data (and a settled workspace_action's, and the CLI's receipt/reconcile). */
const ReceiptData = S.Struct({
  status: ReceiptState,
  request_id: Uuid,
  action: S.Literal(...(Object.keys(ActionFields) as Array<BuiltAction>)),
  state: ReceiptState,
  settled: S.Boolean,
  phases: S.Struct({
    local_applied: S.NullOr(S.Boolean),
    published: S.NullOr(S.Boolean),
    reloaded: S.NullOr(S.Boolean)
  }),
  inputs: S.Record({ key: S.String, value: S.Unknown }),
  inputs_hash: S.String.pipe(S.pattern(/^[0-9a-f]{64}$/)),
  context: S.Struct({ context_id: Uuid, branch: S.NullOr(S.String), head: S.NullOr(Sha) }),
  outcome: S.optional(Outcome),
  history: S.Array(S.Struct({ state: ReceiptState, at: S.String, note: S.optional(S.String) })),
  observed: S.optional(S.Record({ key: S.String, value: Flat }))
})

const ErrorData = S.Struct({
  code: S.String,
  message: S.String,
  details: S.optional(S.Record({ key: S.String.pipe(S.pattern(/^[a-z][a-z0-9_]*$/)), value: S.Unknown }))
})

const open: Array<TempWorkspace> = []
const dirs: Array<string> = []
afterEach(async () => {
  for (const ws of open.splice(0)) await ws.dispose()
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

/** Every key of a JSON value, recursively (arrays walked through). */
const keysOf = (value: unknown, out: Array<string> = []): Array<string> => {
  if (Array.isArray(value)) for (const inner of value) keysOf(inner, out)
  else if (value !== null && typeof value === "object")
    for (const [key, inner] of Object.entries(value)) {
      out.push(key)
      keysOf(inner, out)
    }
  return out
}

/** Item 8 over the whole envelope, and snake_case keys in its data. */
const expectClean = (envelope: Envelope, secrets: ReadonlyArray<string>) => {
  const text = JSON.stringify(envelope)
  for (const secret of secrets) expect(text, `output carries ${secret}`).not.toContain(secret)
  expect(text).not.toContain(SPEC_TOKEN)
  expect(text).not.toMatch(/[a-z][a-z0-9+.-]*:\/\/[^/@\s"]*@/i)
  expect(text).not.toContain(os.tmpdir())
  const bad = keysOf(envelope.data).filter((key) => !/^_?[a-z][a-z0-9_]*$/.test(key))
  expect(bad, "data keys that are not snake_case").toEqual([])
}

/** Decodes an envelope's data against `schema` with excess keys refused; returns the data. */
const expectShape = <A, I>(schema: Schema.Schema<A, I>, envelope: Envelope, secrets: ReadonlyArray<string>) => {
  expect(envelope.ok, JSON.stringify(envelope.error)).toBe(true)
  const decoded = Schema.decodeUnknownEither(schema, { onExcessProperty: "error", errors: "all" })(envelope.data)
  if (Either.isLeft(decoded)) expect.fail(`${envelope.operation}: ${decoded.left.message}`)
  expectClean(envelope, secrets)
  return envelope.data as Record<string, any>
}

const expectErrorShape = (envelope: Envelope, code: string, secrets: ReadonlyArray<string>) => {
  expect(envelope.ok).toBe(false)
  expect(envelope.error?.code).toBe(code)
  const decoded = Schema.decodeUnknownEither(ErrorData, { onExcessProperty: "error" })(envelope.error)
  if (Either.isLeft(decoded)) expect.fail(`${code}: ${decoded.left.message}`)
  const text = JSON.stringify(envelope)
  for (const secret of secrets) expect(text).not.toContain(secret)
}

/** A repository with origin a local bare remote and upstream the GitHub stand-in with `user:pass@` in its URL. */
const fixture = async (settings: Record<string, unknown> = {}) => {
  const root = await makeTempDir("aw-ws-shape-")
  initRepo(root, { "a.txt": "one\n", "b.txt": "bee\n" })
  const bare = await addBareRemote(root)
  dirs.push(bare)
  git(root, "branch", "--set-upstream-to=origin/main")
  const url = gh.server().remoteUrl.replace("https://", "https://user:hunter2@")
  git(root, "remote", "add", "upstream", url)
  const ws = await openWorkspace({ permissionMode: 2, allowDestructiveEdits: true, ...settings }, root)
  open.push(ws)
  return { ws, root, bare, secrets: [root, bare, "hunter2", "user:hunter2"] }
}

const contextOf = async (ws: TempWorkspace) => data(await ws.call("get_workspace_status", {}))["context_id"] as string

/** The staged, the confirmed and the replayed output of one action, each decoded, the receipt's inputs exact. */
const runAction = async (ws: TempWorkspace, secrets: ReadonlyArray<string>, fields: Record<string, unknown>) => {
  const action = fields["action"] as BuiltAction
  const args: Record<string, unknown> = { ...fields, context_id: await contextOf(ws), request_id: randomUUID() }
  const staged = expectShape(StagedData, await ws.call("workspace_action", args), secrets)
  expect(staged["action"]).toBe(action)
  await ws.run(preprocess(`/accept ${staged["approval"]["id"]}`))
  const ran = expectShape(ReceiptData, await ws.call("workspace_action", args), secrets)
  const { action: _action, ...inputs } = args
  const exact = Schema.decodeUnknownEither(ActionFields[action] as Schema.Schema.AnyNoContext, {
    onExcessProperty: "error"
  })(ran["inputs"])
  expect(Either.isRight(exact), `${action} inputs`).toBe(true)
  expect(ran["inputs"]).toEqual(inputs)
  const replay = expectShape(ReceiptData, await ws.call("workspace_action", args), secrets)
  expect(replay["state"]).toBe(ran["state"])
  const read = expectShape(
    ReceiptData,
    await ws.call("get_workspace_operation", { request_id: args.request_id }),
    secrets
  )
  // A read of an unknown receipt reconciles: it adds what it observed, nothing else.
  const { observed: _observed, ...receipt } = read
  expect(receipt).toEqual(ran)
  return { ran, args }
}

describe("output audit: every view against the reference's shape", () => {
  it("get_workspace_status and every base and remote view (changes, stashes, branches, history) decode with exact keys", async () => {
    const { ws, root, secrets } = await fixture()
    await ws.write("c.txt", "new\n")
    git(root, "mv", "b.txt", "renamed.txt")
    fs.writeFileSync(path.join(root, "a.txt"), "stash me\n")
    git(root, "stash", "push", "-q", "--", "a.txt")
    await ws.write("a.txt", "changed\n")
    git(root, "branch", "other")
    const status = expectShape(StatusData, await ws.call("get_workspace_status", {}), secrets)
    expect(status["changes"]).toMatchObject({ total: 3, changed: 1, renamed: 1, untracked: 1 })
    const id = status["context_id"] as string
    const changes = expectShape(
      ChangesPage,
      await ws.call("read_workspace", { context_id: id, view: "changes" }),
      secrets
    )
    expect(changes["entries"].map((entry: any) => entry.kind).sort()).toEqual(["changed", "renamed", "untracked"])
    expectShape(StashesPage, await ws.call("read_workspace", { context_id: id, view: "stashes" }), secrets)
    const branches = expectShape(
      BranchesPage,
      await ws.call("read_workspace", { context_id: id, view: "branches" }),
      secrets
    )
    expect(branches["entries"].map((entry: any) => entry.kind)).toContain("remote")
    expectShape(HistoryPage, await ws.call("read_workspace", { context_id: id, view: "history" }), secrets)
  })

  it("every PR view (pull_requests, pull_request, pull_request_diff file_list, unified_diff_chunks, a review_gap) decodes with exact keys", async () => {
    const { ws, secrets } = await fixture()
    gh.server().pulls.push(
      restPull(3, {
        body: "Describe\nit",
        files: [
          { filename: "src/a.ts", status: "modified", additions: 1, deletions: 1, patch: "@@ -1 +1 @@\n-a\n+b" },
          { filename: "logo.png", status: "added", additions: 0, deletions: 0 },
          { filename: "new.ts", previous_filename: "old.ts", status: "renamed", additions: 0, deletions: 0, patch: "" }
        ]
      })
    )
    const id = await contextOf(ws)
    expectShape(PullRequestsPage, await ws.call("read_workspace", { context_id: id, view: "pull_requests" }), secrets)
    const pr = expectShape(
      PullRequestPage,
      await ws.call("read_workspace", { context_id: id, view: "pull_request", pull_request_number: 3 }),
      secrets
    )
    expect(pr["pull_request"]["url"]).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/octo\/widgets\/pull\/3$/)
    const list = expectShape(
      FileListPage,
      await ws.call("read_workspace", { context_id: id, view: "pull_request_diff", pull_request_number: 3 }),
      secrets
    )
    for (const [file, side] of [
      ["src/a.ts", "source"],
      ["logo.png", "source"],
      ["src/a.ts", "target"]
    ] as const) {
      const diff = expectShape(
        DiffPage,
        await ws.call("read_workspace", {
          context_id: id,
          view: "pull_request_diff",
          pull_request_number: 3,
          path: file,
          side,
          read_snapshot: list["read_snapshot"]
        }),
        secrets
      )
      expect(diff["review_gap"] === null).toBe(file !== "logo.png")
    }
  })

  it("errors carry a code, a message and snake_case details only, with no path or credential", async () => {
    const { ws, root, secrets } = await fixture({ workspaceCapabilities: ["workspace:commands:v1"] })
    expectErrorShape(
      await ws.call("read_workspace", { context_id: randomUUID(), view: "changes" }),
      "CONTEXT_STALE",
      secrets
    )
    expectErrorShape(
      await ws.call("read_workspace", { context_id: randomUUID(), view: "branches" }),
      "CAPABILITY_MISSING",
      secrets
    )
    expectErrorShape(await ws.call("get_workspace_operation", { request_id: randomUUID() }), "NOT_FOUND", secrets)
    const reopened = await ws.reopen({ permissionMode: 2 })
    open.push(reopened)
    git(root, "branch", "b1")
    const id = await contextOf(reopened)
    const first = data(await reopened.call("read_workspace", { context_id: id, view: "branches", limit: 1 }))
    git(root, "branch", "b2")
    expectErrorShape(
      await reopened.call("read_workspace", {
        context_id: id,
        view: "branches",
        offset: 1,
        limit: 1,
        read_snapshot: first["read_snapshot"]
      }),
      "SNAPSHOT_STALE",
      secrets
    )
    await reopened.write("a.txt", "x\n")
    const fresh = await contextOf(reopened)
    const request_id = randomUUID()
    await reopened.call("workspace_action", { action: "commit", context_id: fresh, request_id, message: "one" })
    expectErrorShape(
      await reopened.call("workspace_action", { action: "commit", context_id: fresh, request_id, message: "two" }),
      "EDIT_CONFLICT",
      secrets
    )
  })
})

describe("output audit: every action, staged, confirmed, replayed and read back", () => {
  it("commit, push, pull, branch_create, branch_switch, branch_delete, move, stash_restore, stash_discard decode with exact keys; the receipt's inputs are the action's exact fields", async () => {
    const { ws, root, secrets } = await fixture()
    await ws.write("a.txt", "committed\n")
    expect((await runAction(ws, secrets, { action: "commit", message: "m" })).ran["state"]).toBe("succeeded")
    expect((await runAction(ws, secrets, { action: "push", remote: "origin", branch: "main" })).ran["state"]).toBe(
      "succeeded"
    )
    expect((await runAction(ws, secrets, { action: "pull", remote: "origin", branch: "main" })).ran).toMatchObject({
      state: "succeeded",
      outcome: { noop: true }
    })
    await runAction(ws, secrets, { action: "branch_create", name: "feature", start_point: "main" })
    await runAction(ws, secrets, { action: "branch_create", name: "gone" })
    await ws.write("a.txt", "parked\n")
    expect((await runAction(ws, secrets, { action: "branch_switch", name: "feature" })).ran["outcome"]["park"]).toMatch(
      /^[0-9a-f]{40}$/
    )
    await runAction(ws, secrets, { action: "branch_delete", name: "gone" })
    expect((await runAction(ws, secrets, { action: "move", from: "b.txt", to: "b-moved.txt" })).ran["state"]).toBe(
      "succeeded"
    )
    git(root, "commit", "-q", "-m", "moved")
    const stashes = data(await ws.call("read_workspace", { context_id: await contextOf(ws), view: "stashes" }))
    const park = stashes["entries"][0]["stash_id"] as string
    fs.writeFileSync(path.join(root, "b2.txt"), "second\n")
    git(root, "stash", "push", "-q", "-u")
    const second = git(root, "rev-parse", "refs/stash").trim()
    expect((await runAction(ws, secrets, { action: "stash_discard", stash_id: second })).ran["state"]).toBe("succeeded")
    expect((await runAction(ws, secrets, { action: "stash_restore", stash_id: park })).ran["state"]).toBe("succeeded")
  }, 240_000)

  it("failed and unknown outcomes decode too: a rejected push (git's message names the remote's absolute path, scrubbed) and a refused pr_create", async () => {
    const { ws, root, bare, secrets } = await fixture()
    const other = await makeTempDir("aw-ws-shape-other-")
    dirs.push(other)
    git(other, "clone", "-q", bare, ".")
    git(other, "-c", "user.name=O", "-c", "user.email=o@example.com", "commit", "-q", "--allow-empty", "-m", "theirs")
    git(other, "push", "-q", "origin", "main")
    git(root, "commit", "-q", "--allow-empty", "-m", "ours")
    const { ran } = await runAction(ws, [...secrets, other], { action: "push", remote: "origin", branch: "main" })
    expect(ran).toMatchObject({ state: "failed", outcome: { code: "NON_FAST_FORWARD" } })
    gh.server().pulls.push(
      restPull(1, { head: { ref: "feature", sha: "1".repeat(40), repo: { full_name: "octo/widgets" } } })
    )
    const refused = await runAction(ws, secrets, {
      action: "pr_create",
      title: "dup",
      body: "",
      base: "main",
      head: "feature"
    })
    expect(refused.ran).toMatchObject({ state: "failed", outcome: { status: 422 } })
  }, 240_000)

  it("pr_create and pr_merge decode with exact keys (the PR's url without user:pass@), and an unknown merge's observed facts too", async () => {
    const { ws, secrets } = await fixture()
    const created = await runAction(ws, secrets, {
      action: "pr_create",
      title: "Add",
      body: "why",
      base: "main",
      head: "feature",
      draft: true
    })
    expect(created.ran["outcome"]["url"]).toMatch(/^https:\/\/127\.0\.0\.1:\d+\//)
    const merged = await runAction(ws, secrets, { action: "pr_merge", pull_request_number: 1 })
    expect(merged.ran).toMatchObject({ state: "succeeded", outcome: { pull_request_number: 1 } })
    gh.server().pulls.push(restPull(2))
    gh.server().faults.push({ method: "PUT", pattern: /merge$/, status: 502 })
    const lost = await runAction(ws, secrets, { action: "pr_merge", pull_request_number: 2 })
    expect(lost.ran["state"]).toBe("unknown")
    const observed = expectShape(
      ReceiptData,
      await ws.call("get_workspace_operation", { request_id: lost.args.request_id }),
      secrets
    )
    expect(observed["observed"]).toMatchObject({ merged: false })
  }, 240_000)
})

describe("output audit: the CLI prints the same shapes", () => {
  it("workspaces status, changes, review, receipt, reconcile, confirm and commit decode with exact keys and carry no absolute path", async () => {
    const { ws, root, secrets } = await fixture()
    await ws.write("a.txt", "changed\n")
    const cli = async (...args: Array<string>) =>
      JSON.parse((await runCli(["workspaces", ...args, "--project", root, "--json"])).stdout) as Envelope
    expectShape(StatusData, await cli("status"), secrets)
    expectShape(ChangesPage, await cli("changes", "--limit", "1", "--offset", "0"), secrets)
    const review = await cli("review")
    expectShape(
      S.Struct({
        status: StatusData,
        changes: S.Struct({ entries: ChangesPage.fields.entries, complete: S.Boolean, read_snapshot: Snapshot })
      }),
      review,
      secrets
    )
    const args = { action: "commit", context_id: await contextOf(ws), request_id: randomUUID(), message: "model's" }
    await ws.call("workspace_action", args)
    const CliConfirm = S.Struct({
      status: S.Literal("needs_confirmation", "confirmed"),
      request_id: Uuid,
      action: S.String,
      approval: StagedData.fields.approval,
      review: StagedData.fields.review
    })
    expectShape(CliConfirm, await cli("confirm", "--request-id", args.request_id), secrets)
    expectShape(CliConfirm, await cli("confirm", "--request-id", args.request_id, "--yes"), secrets)
    const ran = expectShape(ReceiptData, await ws.call("workspace_action", args), secrets)
    expect(ran["state"]).toBe("succeeded")
    expectShape(ReceiptData, await cli("receipt", "--request-id", args.request_id), secrets)
    expectShape(ReceiptData, await cli("reconcile", "--request-id", args.request_id), secrets)
    await ws.write("a.txt", "again\n")
    const dry = expectShape(
      S.Struct({
        status: S.Literal("needs_confirmation"),
        action: S.Literal("commit"),
        guide: S.String,
        review: StagedData.fields.review
      }),
      await cli("commit", "from the terminal"),
      secrets
    )
    expect(dry["guide"]).toContain("Commits")
    expectShape(ReceiptData, await cli("commit", "from the terminal", "--yes"), secrets)
  }, 240_000)
})
