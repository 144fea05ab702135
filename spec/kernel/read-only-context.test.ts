/**
 * Issue 28 item 1, "An ungated action cannot change anything, by type": an ungated `run` and a gated
 * `load` get the read-only context (ReadContext): no `WorkspaceWrites`, no `StateStore` (the store's reads are
 * `StateReads`; the tool's own records are `OwnStore`, a kernel-owned write confined to the tool's storage),
 * no `HostFs` (its reads are `HostReads`), no `Processes` (its reads are `ProcessReads`, git and gh reads go
 * through `VcsReads`, whose types admit read-only subcommands only), no `Browser` (its reads are
 * `BrowserReads`; a session's start and end are `BrowserSessions`), no `RunWorkers` (`WorkerReads`, and
 * `RunControl` to stop a worker), no `HttpClient`; only a gated action's `interpret` may write. Each
 * `@ts-expect-error` below fails `npx tsc` the day a write from `run` or `load` type-checks (the directive
 * becomes unused), and the spec shows at run time that the same write, in `interpret`, goes through the gate,
 * that OwnStore refuses a path outside the tool's storage, and that PlanRecords changes plan records only.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { afterEach, describe, expect, it } from "vitest"
import { toolError } from "../../core/protocol/errors.ts"
import { PlanRecords } from "../../core/gate/planRecords.ts"
import * as HttpClient from "@effect/platform/HttpClient"
import { openGh, openGit } from "../../core/exec/git.ts"
import { baseOptions } from "../../core/exec/gitConfig.ts"
import { Browser, BrowserReads, BrowserSessions } from "../../core/services/Browser.ts"
import { HostFs, HostReads } from "../../core/services/HostFs.ts"
import { JobControl } from "../../core/services/JobControl.ts"
import { LanguageServers } from "../../core/services/LanguageServers.ts"
import { ProcessReads, Processes } from "../../core/services/Processes.ts"
import { RunControl, RunWorkers, WorkerReads } from "../../core/services/RunWorkers.ts"
import { ghReadRefusal, gitReadRefusal, VcsReads } from "../../core/services/VcsReads.ts"
import { WorkspaceWrites } from "../../core/services/Workspace.ts"
import { OwnStore, StateReads, StateStore } from "../../core/store/StateStore.ts"
import { planTool } from "../../core/tools/plan/tool.ts"
import { defineTool, gatedAction, type ReadContext, ungated } from "../../core/tools/Tool.ts"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"

const bytes = (text: string) => new TextEncoder().encode(text)
const written = (rel: string) => Effect.flatMap(WorkspaceWrites, (ws) => ws.write(rel, bytes("written")))
const Fields = Schema.Struct({ path: Schema.String })
const Plan = Schema.TaggedStruct("Write", { path: Schema.String })
const endpoint = {
  cdpUrl: "http://127.0.0.1:1",
  proxyPort: 1,
  supervisorPid: 1,
  supervisorIdentity: "x",
  browserPid: 1,
  executablePath: "",
  userDataDir: "/tmp"
}

// An ungated action that writes the workspace: refused by the type checker.
// @ts-expect-error WorkspaceWrites is not in an ungated run's context (ReadContext)
const writesFromRun = ungated((input: { readonly path: string }) => Effect.as(written(input.path), { summary: "" }))

// The same through a handlers entry.
const writesFromRunEntry: {
  readonly gate: "none"
  readonly run: (input: { readonly path: string }) => Effect.Effect<{ summary: string }, never, ReadContext>
} = {
  gate: "none",
  // @ts-expect-error WorkspaceWrites is not in an ungated run's context (ReadContext)
  run: (input) => Effect.as(Effect.orDie(written(input.path)), { summary: "" })
}

// A gated action whose load writes: refused by the type checker.
const writesFromLoad = gatedAction({
  gate: "transaction",
  planSchema: Plan,
  // @ts-expect-error WorkspaceWrites is not in a load's context (ReadContext)
  load: (input: { readonly action: "write"; readonly path: string }) => Effect.as(written(input.path), input.path),
  plan: (_input, rel: string) => Either.left(toolError("INVALID_INPUT", rel)),
  interpret: () => Effect.void,
  view: () => Effect.succeed({ summary: "" })
})

// The state store's writes from an ungated run (an approval record planted by a read): refused.
const storeWriteFromRun = ungated(() =>
  // @ts-expect-error StateStore is not in an ungated run's context (it has StateReads and OwnStore)
  Effect.as(Effect.orDie(Effect.flatMap(StateStore, (store) => store.writeText("approvals/state.json", "{}"))), {
    summary: ""
  })
)

// The host filesystem's writes from a load: refused.
const hostWriteFromLoad = gatedAction({
  gate: "transaction",
  planSchema: Plan,
  // @ts-expect-error HostFs is not in a load's context (it has HostReads)
  load: (input: { readonly action: "write"; readonly path: string }) =>
    Effect.as(Effect.orDie(Effect.flatMap(HostFs, (host) => host.writeFileAtomic(input.path, bytes("x")))), input.path),
  plan: (_input, rel: string) => Either.left(toolError("INVALID_INPUT", rel)),
  interpret: () => Effect.void,
  view: () => Effect.succeed({ summary: "" })
})

// The reading services have no writing member at all.
// @ts-expect-error StateReads has no writeText
const readsCannotWrite = Effect.flatMap(StateReads, (store) => store.writeText("notes/a.md", "x"))
// @ts-expect-error HostReads has no writeFileAtomic
const hostReadsCannotWrite = Effect.flatMap(HostReads, (host) => host.writeFileAtomic("/tmp/x", bytes("x")))

// Processes from an ungated run: starting a job, running any program.
const launchFromRun = ungated(() =>
  // @ts-expect-error Processes is not in an ungated run's context (it has ProcessReads)
  Effect.as(Effect.orDie(Effect.flatMap(Processes, (processes) => processes.launch("/tmp/job"))), { summary: "" })
)
const execFromLoad = gatedAction({
  gate: "command",
  planSchema: Plan,
  // @ts-expect-error Processes is not in a load's context: no exec of any program
  load: (input: { readonly action: "write"; readonly path: string }) =>
    Effect.as(
      Effect.flatMap(Processes, (processes) => processes.exec({ argv: ["rm", input.path], cwd: "/", timeoutMs: 1 })),
      input.path
    ),
  plan: (_input, rel: string) => Either.left(toolError("INVALID_INPUT", rel)),
  interpret: () => Effect.void,
  view: () => Effect.succeed({ summary: "" })
})

// A browser control (navigate, click, type, evaluate) from an ungated run.
const controlFromRun = ungated(() =>
  // @ts-expect-error Browser is not in an ungated run's context (it has BrowserReads and BrowserSessions)
  Effect.as(
    Effect.flatMap(Browser, (browser) => browser.act(endpoint, { _tag: "reload" }, 1000)),
    { summary: "" }
  )
)

// Starting a sub-agent worker from a load.
const spawnFromLoad = gatedAction({
  gate: "agent",
  planSchema: Plan,
  // @ts-expect-error RunWorkers is not in a load's context (it has WorkerReads and RunControl)
  load: (input: { readonly action: "write"; readonly path: string }) =>
    Effect.as(
      Effect.flatMap(RunWorkers, (workers) => workers.spawn("/tmp", "run_1")),
      input.path
    ),
  plan: (_input, rel: string) => Either.left(toolError("INVALID_INPUT", rel)),
  interpret: () => Effect.void,
  view: () => Effect.succeed({ summary: "" })
})

// A network request from an ungated run (research's search and fetch are gated "web").
const requestFromRun = ungated(() =>
  // @ts-expect-error HttpClient is not in an ungated run's context
  Effect.as(Effect.orDie(HttpClient.get("https://example.com/")), { summary: "" })
)

// git through the read runner admits read subcommands only; a write needs Processes (execWrite), an interpreter's.
const commitThroughReads = Effect.flatMap(openGit(undefined), (git) =>
  // @ts-expect-error "commit" is not a GitReadArgs subcommand
  git.must(["commit", "-m", "planted"])
)
const configSetThroughReads = Effect.flatMap(openGit(undefined), (git) =>
  // @ts-expect-error `git config` only with --get/--get-all/--get-regexp/--list
  git.exec(["config", "user.name", "planted"])
)
const commitFromRun = ungated(() =>
  // @ts-expect-error execWrite needs Processes, which an ungated run does not have
  Effect.as(
    Effect.flatMap(openGit(undefined), (git) => git.mustWrite(["commit", "-m", "planted"])),
    { summary: "" }
  )
)
const ghPostThroughReads = Effect.flatMap(Effect.flatMap(openGit(undefined), openGh), (gh) =>
  // @ts-expect-error gh api only with --method GET through the read runner
  gh.exec(["api", "-i", "--method", "POST", "repos/o/r/pulls"])
)

// The reading halves have no acting member; the kernel-owned writes have only their own.
// @ts-expect-error ProcessReads has no launch
const processReadsCannotLaunch = Effect.flatMap(ProcessReads, (processes) => processes.launch("/tmp/job"))
// @ts-expect-error ProcessReads has no signalGroup (JobControl signals a job's recorded group only)
const processReadsCannotSignal = Effect.flatMap(ProcessReads, (processes) => processes.signalGroup(1, "SIGKILL"))
// @ts-expect-error BrowserReads has no act
const browserReadsCannotAct = Effect.flatMap(BrowserReads, (browser) => browser.act(endpoint, { _tag: "back" }, 1))
// @ts-expect-error BrowserSessions has no act
const sessionsCannotAct = Effect.flatMap(BrowserSessions, (browser) => browser.act(endpoint, { _tag: "back" }, 1))
// @ts-expect-error WorkerReads has no spawn
const workerReadsCannotSpawn = Effect.flatMap(WorkerReads, (workers) => workers.spawn("/tmp", "run_1"))
// @ts-expect-error RunControl has no spawn
const runControlCannotSpawn = Effect.flatMap(RunControl, (workers) => workers.spawn("/tmp", "run_1"))
// @ts-expect-error LanguageServers answers queries; stopping the servers is the runtime's close
const serversCannotShutDown = Effect.flatMap(LanguageServers, (servers) => servers.shutdown)

// What a read may do type-checks: the store's and the host's reads, the tool's own records.
const readsAndOwnRecords = ungated((input: { readonly path: string }) =>
  Effect.gen(function* () {
    const reads = yield* StateReads
    const host = yield* HostReads
    const own = yield* OwnStore
    yield* own.writeText(input.path, "kept")
    return { summary: `${reads.path(input.path)} ${typeof host.stat}` }
  })
)

/** An ungated tool that keeps records through OwnStore: its storage is `.agentic/testown/`. */
const ownWriter = defineTool({
  name: "test_own_store",
  short: "ownstore",
  description: "Test only: an ungated action that writes through OwnStore.",
  actions: { write: Fields },
  enabled: () => true,
  hints: { readOnlyHint: false, destructiveHint: false, openWorldHint: false, why: "test only" },
  storage: [{ name: "testown", path: ".agentic/testown/", probe: "testown", description: "test", rank: 999 }],
  probe: { args: {}, ok: "any" },
  handlers: { write: readsAndOwnRecords }
})

/** The write where it belongs: in the interpreter, behind the gate. */
const gatedWriter = defineTool({
  name: "test_interpret_writes",
  short: "iwrites",
  description: "Test only: a gated action whose interpreter writes one file.",
  actions: { write: Fields },
  enabled: () => true,
  hints: { readOnlyHint: false, destructiveHint: false, openWorldHint: false, why: "test only" },
  probe: { args: {}, ok: "any" },
  handlers: {
    write: gatedAction({
      gate: "transaction",
      planSchema: Plan,
      load: (input: { readonly action: "write"; readonly path: string }) => Effect.succeed(input.path),
      plan: (_input, rel: string) =>
        Either.right({
          _tag: "Planned" as const,
          plan: { _tag: "Write" as const, path: rel },
          work: rel,
          title: `Write ${rel}`,
          prompt: { _tag: "transaction" as const, diff: `+++ ${rel}`, paths: [rel] },
          resume: { tool: "test_interpret_writes", arguments: { action: "write", path: rel } }
        }),
      interpret: (plan) => written(plan.path),
      view: (_outcome, planned) => Effect.succeed({ summary: `Wrote ${planned.plan.path}.` })
    })
  }
})

let ws: TempWorkspace | undefined
afterEach(async () => {
  await ws?.dispose()
  ws = undefined
})

describe("an ungated action cannot change anything, by type", () => {
  it("the refused declarations are still the declarations they claim (the type checker, not their shape, refuses them)", () => {
    expect([
      writesFromRun.gate,
      writesFromRunEntry.gate,
      writesFromLoad.gate,
      storeWriteFromRun.gate,
      hostWriteFromLoad.gate,
      launchFromRun.gate,
      execFromLoad.gate,
      controlFromRun.gate,
      spawnFromLoad.gate,
      requestFromRun.gate,
      commitFromRun.gate
    ]).toEqual([
      "none",
      "none",
      "transaction",
      "none",
      "transaction",
      "none",
      "command",
      "none",
      "agent",
      "none",
      "none"
    ])
    expect(
      [
        readsCannotWrite,
        hostReadsCannotWrite,
        commitThroughReads,
        configSetThroughReads,
        ghPostThroughReads,
        processReadsCannotLaunch,
        processReadsCannotSignal,
        browserReadsCannotAct,
        sessionsCannotAct,
        workerReadsCannotSpawn,
        runControlCannotSpawn,
        serversCannotShutDown
      ].every(Effect.isEffect)
    ).toBe(true)
  })
  it("a write in interpret type-checks and runs only through the gate: staged in Manual, written in Auto", async () => {
    ws = await openWorkspace({ permissionMode: 0 }, undefined, [gatedWriter])
    const staged = await ws.call("test_interpret_writes", { action: "write", path: "a.txt" })
    expect((staged.data as { status: string }).status).toBe("pending_approval")
    await expect(fs.stat(path.join(ws.dir, "a.txt"))).rejects.toThrow()
    await ws.dispose()
    ws = await openWorkspace({ permissionMode: 2 }, undefined, [gatedWriter])
    const done = await ws.call("test_interpret_writes", { action: "write", path: "a.txt" })
    expect(done.ok, done.summary).toBe(true)
    expect(await fs.readFile(path.join(ws.dir, "a.txt"), "utf8")).toBe("written")
  })

  it("OwnStore keeps a tool's records in its own storage; a path outside it fails PROTECTED_PATH and writes nothing", async () => {
    ws = await openWorkspace({ permissionMode: 0 }, undefined, [ownWriter])
    const kept = await ws.call("test_own_store", { action: "write", path: "testown/a.txt" })
    expect(kept.ok, kept.summary).toBe(true)
    expect(await fs.readFile(path.join(ws.dir, ".agentic/testown/a.txt"), "utf8")).toBe("kept")
    for (const outside of [
      "approvals/state.json",
      "testown/../approvals/state.json",
      "notes/planted.md",
      "testownx/a"
    ]) {
      const refused = await ws.call("test_own_store", { action: "write", path: outside })
      expect(refused.ok, outside).toBe(false)
      expect(refused.error?.code, outside).toBe("PROTECTED_PATH")
    }
    await expect(fs.stat(path.join(ws.dir, ".agentic/approvals/state.json"))).rejects.toThrow()
    await expect(fs.stat(path.join(ws.dir, ".agentic/notes/planted.md"))).rejects.toThrow()
  })
  it("PlanRecords changes plan records only: approving a staged call through it is refused and the store is unchanged", async () => {
    ws = await openWorkspace({ permissionMode: 0 }, undefined, [gatedWriter, planTool])
    const staged = await ws.call("test_interpret_writes", { action: "write", path: "a.txt" })
    expect((staged.data as { status: string }).status).toBe("pending_approval")
    const file = path.join(ws.dir, ".agentic/approvals/state.json")
    const before = await fs.readFile(file, "utf8")
    const approve = Effect.flatMap(PlanRecords, (plans) =>
      plans.update((records) =>
        Effect.succeed([undefined, records.map((record) => ({ ...record, status: "approved" as const }))] as const)
      )
    )
    const refused = await ws.run(Effect.either(approve))
    expect(Either.isLeft(refused) && refused.left.code).toBe("INTERNAL_ERROR")
    expect(await fs.readFile(file, "utf8")).toBe(before)
    const proposed = await ws.call("workspace_plan", {
      action: "propose",
      title: "t",
      objective: "o",
      steps: ["one"]
    })
    expect(proposed.ok, proposed.summary).toBe(true)
  })
})

const membersOf = (service: object) => Object.keys(service).sort()

describe("the narrow services exist and carry only what they name", () => {
  it("the reading halves and the kernel-owned writes are derived with exactly their members", async () => {
    ws = await openWorkspace()
    const members = await ws.run(
      Effect.all({
        processReads: Effect.map(ProcessReads, membersOf),
        browserReads: Effect.map(BrowserReads, membersOf),
        browserSessions: Effect.map(BrowserSessions, membersOf),
        workerReads: Effect.map(WorkerReads, membersOf),
        runControl: Effect.map(RunControl, membersOf),
        jobControl: Effect.map(JobControl, membersOf),
        vcsReads: Effect.map(VcsReads, membersOf)
      })
    )
    expect(members).toEqual({
      processReads: ["bootId", "groupAlive", "isAlive", "resolve", "sandbox"],
      browserReads: ["alive", "html", "page", "screenshot", "tree"],
      browserSessions: ["close", "launch"],
      workerReads: ["alive"],
      runControl: ["stop"],
      jobControl: ["signalJob"],
      // inheritsGitRepository: a fact of the environment git inherits (whether it names a repository), no run.
      vcsReads: ["gh", "git", "inheritsGitRepository"]
    })
  })

  it("JobControl signals only a job's recorded group: a name that is not a job id, or a job never started, is false", async () => {
    ws = await openWorkspace()
    const signalled = await ws.run(
      Effect.flatMap(JobControl, (control) =>
        Effect.all([control.signalJob("../../x", "SIGTERM"), control.signalJob("job_neverstarted", "SIGKILL")])
      )
    )
    expect(signalled).toEqual([false, false])
  })

  it("JobControl signals a recorded group only in the boot the job was started in (a group id of another boot names someone else's processes)", async () => {
    ws = await openWorkspace()
    const child = spawn("sleep", ["30"], { detached: true, stdio: "ignore" })
    const exited = new Promise((resolve) => child.once("exit", resolve))
    try {
      const pid = child.pid!
      const job = path.join(ws.dir, ".agentic/jobs/job_otherboot")
      await fs.mkdir(job, { recursive: true })
      await fs.writeFile(path.join(job, "started.json"), JSON.stringify({ pid, pgid: pid }))
      await fs.writeFile(path.join(job, "job.json"), JSON.stringify({ id: "job_otherboot", bootId: "another-boot" }))
      const signal = () =>
        ws!.run(Effect.flatMap(JobControl, (control) => control.signalJob("job_otherboot", "SIGTERM")))
      expect(await signal()).toBe(false)
      expect(child.exitCode === null && child.signalCode === null).toBe(true)
      const boot = (await fs.readFile("/proc/sys/kernel/random/boot_id", "utf8")).trim()
      await fs.writeFile(path.join(job, "job.json"), JSON.stringify({ id: "job_otherboot", bootId: boot }))
      expect(await signal()).toBe(true)
      await exited
      expect(child.signalCode).toBe("SIGTERM")
    } finally {
      child.kill("SIGKILL")
    }
  })

  it("VcsReads runs a git read, and refuses before running anything what its types let through but is not a read", async () => {
    ws = await openWorkspace()
    const dir = ws.dir
    await fs.mkdir(path.join(dir, ".agentic/vcs/scratch"), { recursive: true })
    const request = {
      executable: "git",
      options: ["--no-pager", "-c", "core.quotepath=off"],
      cwd: dir,
      timeoutMs: 30_000
    }
    const status = await ws.run(
      Effect.flatMap(VcsReads, (reads) => reads.git({ ...request, args: ["rev-parse", "--is-inside-work-tree"] }))
    )
    expect(typeof status.exitCode).toBe("number")
    const planted = path.join(dir, "planted-index")
    const refused = await ws.run(
      Effect.flatMap(VcsReads, (reads) =>
        Effect.all(
          [
            reads.git({ ...request, executable: "/bin/sh", args: ["status"] }),
            reads.git({ ...request, options: ["commit", "-m", "x"], args: ["status"] }),
            reads.git({ ...request, args: ["update-index", "--add", "a.txt"], env: { GIT_INDEX_FILE: planted } }),
            reads.git({
              ...request,
              args: ["write-tree"],
              env: { GIT_INDEX_FILE: `${dir}/.agentic/vcs/scratch/../../../planted-index` }
            }),
            reads.gh({ ...request, executable: "gh", args: ["api", "-i", "--method", "GET", "-f", "title=x", "x"] }),
            reads.git({ ...request, args: ["ls-remote", "ext::sh"], env: { GIT_SSH_COMMAND: "touch planted" } }),
            reads.git({ ...request, args: ["log"], env: { GIT_PAGER: "touch planted" } }),
            reads.git({ ...request, options: ["-c", "core.fsmonitor=touch planted"], args: ["status"] }),
            reads.git({ ...request, options: ["-c", "diff.external=touch planted"], args: ["diff"] }),
            reads.git({ ...request, args: ["diff", `--output=${planted}`] }),
            reads.gh({
              ...request,
              executable: "gh",
              args: ["pr", "list"],
              env: { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "core.pager", GIT_CONFIG_VALUE_0: "touch planted" }
            })
          ].map((run) => Effect.map(Effect.flip(run), (error) => error.code))
        )
      )
    )
    expect(refused).toEqual(Array.from({ length: 11 }, () => "INVALID_INPUT"))
    await expect(fs.stat(planted)).rejects.toThrow()
  })

  it("the read lists: what each refusal names, and the reads they let through", () => {
    const git = { executable: "/usr/bin/git", options: ["--no-pager"], cwd: "/w", timeoutMs: 1 }
    expect([
      gitReadRefusal({ ...git, args: ["status", "-z"] }, "/w/.agentic"),
      gitReadRefusal({ ...git, args: ["remote", "-v"] }, "/w/.agentic"),
      gitReadRefusal({ ...git, args: ["config", "--get", "user.name"] }, "/w/.agentic"),
      gitReadRefusal(
        { ...git, args: ["write-tree"], env: { GIT_INDEX_FILE: "/w/.agentic/vcs/scratch/i" } },
        "/w/.agentic"
      ),
      ghReadRefusal({ ...git, executable: "gh", args: ["pr", "list"] }),
      ghReadRefusal({
        ...git,
        executable: "gh",
        args: ["api", "-i", "--method", "GET", "-H", "Accept: x", "repos/o/r"]
      })
    ]).toEqual([undefined, undefined, undefined, undefined, undefined, undefined])
    const hardened = [...baseOptions(false), "-c", "filter.lfs.smudge=", "-c", "core.sshCommand=ssh"]
    expect(gitReadRefusal({ ...git, options: hardened, args: ["status"] }, "/w/.agentic")).toBeUndefined()
    expect(gitReadRefusal({ ...git, options: ["-c", "core.hooksPath=/tmp/hooks"], args: ["status"] }, "/w")).toBe(
      "-c core.hooksPath with another value"
    )
    expect(gitReadRefusal({ ...git, args: ["diff", "--output=/w/planted", "HEAD"] }, "/w/.agentic")).toBe(
      "git diff --output, which writes a file"
    )
    expect(gitReadRefusal({ ...git, args: ["log", "--output", "/w/planted"] }, "/w/.agentic")).toBe(
      "git log --output, which writes a file"
    )
    expect(gitReadRefusal({ ...git, args: ["diff", "HEAD", "--", "--output=name"] }, "/w/.agentic")).toBeUndefined()
    expect(gitReadRefusal({ ...git, args: ["write-tree"], env: { GIT_INDEX_FILE: "/w/index" } }, "/w/.agentic")).toBe(
      "git write-tree without GIT_INDEX_FILE naming a copy of the index under .agentic/"
    )
  })
})
