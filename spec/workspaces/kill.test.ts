/**
 * "A kill -9 of the process that runs a confirmed push at several points": a real child process runs the
 * confirmed push through a git wrapper that stops at one point and reports its pid; the spec kills both
 * with SIGKILL, then get_workspace_operation reports the true state read from the local and remote
 * repositories, a repeated call with the same request id never pushes twice (the wrapper logs pushes).
 */
import { execFileSync, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { makeTempDir, openWorkspace, REPO, runCli, type TempWorkspace } from "../support/workspace.ts"
import { addBareRemote, data, git, initRepo } from "../vcs/support.ts"

const open: Array<TempWorkspace> = []
const dirs: Array<string> = []
afterEach(async () => {
  for (const ws of open.splice(0)) await ws.dispose()
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

const REAL_GIT = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim()

/** A `git` that logs every push and, once ARM exists, stops at `point` (writing its pid to MARK) for a minute. */
const wrapper = (dir: string, point: "review" | "before-push" | "after-push" | "none") => {
  const script = `#!/bin/sh
for a in "$@"; do
  if [ "$a" = push ]; then is_push=1; fi
  if [ "$a" = check-ref-format ]; then is_review=1; fi
done
stop() { if [ -f "${dir}/ARM" ] && [ ! -f "${dir}/MARK" ]; then echo $$ > "${dir}/MARK.tmp"; mv "${dir}/MARK.tmp" "${dir}/MARK"; sleep 60; fi; }
if [ -n "$is_review" ] && [ "${point}" = review ]; then stop; fi
if [ -n "$is_push" ]; then
  if [ "${point}" = before-push ]; then stop; fi
  echo push >> "${dir}/PUSHES"
  "${REAL_GIT}" "$@"; code=$?
  if [ "${point}" = after-push ]; then stop; fi
  exit $code
fi
exec "${REAL_GIT}" "$@"
`
  fs.mkdirSync(path.join(dir, "bin"), { recursive: true })
  fs.writeFileSync(path.join(dir, "bin/git"), script, { mode: 0o755 })
}

const runWorker = (root: string, control: string, requestId: string) =>
  spawn(
    process.execPath,
    ["--import", "tsx", path.join(REPO, "spec/workspaces/pushWorker.ts"), root, requestId, path.join(control, "ARM")],
    {
      cwd: REPO,
      env: { ...process.env, PATH: `${path.join(control, "bin")}:${process.env["PATH"]}` },
      stdio: ["ignore", "pipe", "pipe"]
    }
  )

const waitFor = async (file: string, child: ReturnType<typeof spawn>) => {
  for (let i = 0; i < 600; i++) {
    if (fs.existsSync(file)) return fs.readFileSync(file, "utf8").trim()
    if (child.exitCode !== null) throw new Error(`worker exited ${child.exitCode} before the stop point`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error("stop point never reached")
}

/** A pre-receive hook in the bare remote that, once ARM exists, writes its pid to HOOK and waits for RELEASE: git push is mid-flight. */
const blockingHook = (bare: string, control: string) => {
  const hook = `#!/bin/sh
cat > /dev/null
if [ -f "${control}/ARM" ]; then
  echo $$ > "${control}/HOOK.tmp"; mv "${control}/HOOK.tmp" "${control}/HOOK"
  i=0; while [ ! -f "${control}/RELEASE" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
fi
exit 0
`
  fs.writeFileSync(path.join(bare, "hooks/pre-receive"), hook, { mode: 0o755 })
}

/** The process group of a pid (ps), refusing our own group so the spec can never kill itself. */
const groupOf = (pid: number) => {
  const group = Number(execFileSync("ps", ["-o", "pgid=", "-p", String(pid)], { encoding: "utf8" }).trim())
  const own = Number(execFileSync("ps", ["-o", "pgid=", "-p", String(process.pid)], { encoding: "utf8" }).trim())
  if (!(group > 1) || group === own) throw new Error(`refusing to kill process group ${group}`)
  return group
}

const processAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const pushes = (control: string) =>
  fs.existsSync(path.join(control, "PUSHES"))
    ? fs.readFileSync(path.join(control, "PUSHES"), "utf8").split("\n").filter(Boolean).length
    : 0

const setup = async () => {
  const root = await makeTempDir("aw-ws-kill-")
  const control = await makeTempDir("aw-ws-ctl-")
  dirs.push(root, control)
  initRepo(root)
  const bare = await addBareRemote(root)
  dirs.push(bare)
  git(root, "commit", "-q", "--allow-empty", "-m", "to publish")
  return {
    root,
    control,
    bare,
    local: git(root, "rev-parse", "main").trim(),
    before: git(bare, "rev-parse", "main").trim()
  }
}

type StopPoint = "review" | "before-push" | "after-push" | "during-push"

/**
 * The one kill set-up: a worker runs the confirmed push until it stops at `point` (the git wrapper sleeping
 * at review, before or after git push; or, "during-push", git push waiting in the remote's pre-receive
 * hook), then the worker is killed with SIGKILL. The process that stopped is killed first at the wrapper's
 * points; during a push, `alsoPush` kills the push's process group too (else it finishes on RELEASE).
 */
const killWorkerAt = async (point: StopPoint, options: { readonly alsoPush?: boolean } = {}) => {
  const s = await setup()
  const during = point === "during-push"
  wrapper(s.control, during ? "none" : point)
  if (during) blockingHook(s.bare, s.control)
  const requestId = randomUUID()
  const child = runWorker(s.root, s.control, requestId)
  const stopped = Number(await waitFor(path.join(s.control, during ? "HOOK" : "MARK"), child))
  const group = during ? groupOf(stopped) : undefined
  if (!during) process.kill(stopped, "SIGKILL")
  child.kill("SIGKILL")
  await new Promise((resolve) => child.once("exit", resolve))
  if (group !== undefined && options.alsoPush === true) {
    process.kill(-group, "SIGKILL")
    for (let i = 0; i < 100 && processAlive(stopped); i++) await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return { ...s, requestId, stopped }
}

const observe = async (root: string, requestId: string) => {
  const ws = await openWorkspace({}, root)
  const result = await ws.call("get_workspace_operation", { request_id: requestId })
  await ws.runtime.dispose()
  return result
}

describe("kill -9 of a confirmed push", () => {
  it("killed before the intent: the receipt still needs confirmation, the remote is unchanged, and a retry of the same request pushes once", async () => {
    const s = await killWorkerAt("review")
    const seen = await observe(s.root, s.requestId)
    expect(data(seen)["state"]).toBe("needs_confirmation")
    expect(git(s.bare, "rev-parse", "main").trim()).toBe(s.before)
    expect(pushes(s.control)).toBe(0)
    // The approval was never consumed: the same request runs once now.
    fs.rmSync(path.join(s.control, "ARM"))
    wrapper(s.control, "after-push")
    const child = runWorker(s.root, s.control, s.requestId)
    const out = await new Promise<string>((resolve) => {
      let text = ""
      child.stdout!.on("data", (chunk) => (text += chunk))
      child.once("exit", () => resolve(text))
    })
    expect(JSON.parse(out).data.state).toBe("succeeded")
    expect(git(s.bare, "rev-parse", "main").trim()).toBe(s.local)
  }, 180_000)

  it("killed after the intent, before git push: unknown, published false observed, and no later call pushes; Read/reconcile commands do not replay mutations", async () => {
    const s = await killWorkerAt("before-push")
    const seen = await observe(s.root, s.requestId)
    expect(data(seen)).toMatchObject({
      state: "unknown",
      observed: { remote_ref: s.before, published: false, local_commit_present: true }
    })
    expect(git(s.bare, "rev-parse", "main").trim()).toBe(s.before)
    // The same request again replays nothing.
    const ws = await openWorkspace({ permissionMode: 2 }, s.root)
    open.push(ws)
    const status = data(await ws.call("get_workspace_status", {}))
    const again = await ws.call("workspace_action", {
      action: "push",
      context_id: status["context_id"],
      request_id: s.requestId,
      remote: "origin",
      branch: "main"
    })
    expect(data(again)["state"]).toBe("unknown")
    expect(git(s.bare, "rev-parse", "main").trim()).toBe(s.before)
    expect(pushes(s.control)).toBe(0)
    const cli = await runCli(["workspaces", "reconcile", "--project", s.root, "--request-id", s.requestId, "--json"])
    expect(JSON.parse(cli.stdout).data.state).toBe("unknown")
  }, 180_000)

  it("killed after git push, before the outcome is written: reconciliation reads the remote ref and settles succeeded, published", async () => {
    const s = await killWorkerAt("after-push")
    expect(pushes(s.control)).toBe(1)
    const raw = JSON.parse(fs.readFileSync(path.join(s.root, ".agentic/receipts", `${s.requestId}.json`), "utf8"))
    expect(raw.state).toBe("unknown")
    const cliReceipt = await runCli([
      "workspaces",
      "receipt",
      "--project",
      s.root,
      "--request-id",
      s.requestId,
      "--json"
    ])
    expect(JSON.parse(cliReceipt.stdout).data.state).toBe("unknown")
    const seen = await observe(s.root, s.requestId)
    expect(data(seen)).toMatchObject({ state: "succeeded", phases: { local_applied: true, published: true } })
    expect(git(s.bare, "rev-parse", "main").trim()).toBe(s.local)
    expect(pushes(s.control)).toBe(1)
  }, 180_000)

  it("killed during git push (waiting in the remote's pre-receive hook), the push killed with it: unknown, the remote unchanged, published false observed, and nothing pushes again; Unknown outcomes retain recovery; they are not permission for shell Git, manual journal deletion or automatic replay", async () => {
    const s = await killWorkerAt("during-push", { alsoPush: true })
    expect(processAlive(s.stopped)).toBe(false)
    expect(pushes(s.control)).toBe(1)
    const raw = JSON.parse(fs.readFileSync(path.join(s.root, ".agentic/receipts", `${s.requestId}.json`), "utf8"))
    expect(raw.state).toBe("unknown")
    const seen = await observe(s.root, s.requestId)
    expect(data(seen)).toMatchObject({
      state: "unknown",
      observed: { remote_ref: s.before, published: false, local_commit_present: true }
    })
    expect(git(s.bare, "rev-parse", "main").trim()).toBe(s.before)
    const ws = await openWorkspace({ permissionMode: 2 }, s.root)
    open.push(ws)
    const status = data(await ws.call("get_workspace_status", {}))
    const again = await ws.call("workspace_action", {
      action: "push",
      context_id: status["context_id"],
      request_id: s.requestId,
      remote: "origin",
      branch: "main"
    })
    expect(data(again)["state"]).toBe("unknown")
    const cli = await runCli(["workspaces", "reconcile", "--project", s.root, "--request-id", s.requestId, "--json"])
    expect(JSON.parse(cli.stdout).data).toMatchObject({ state: "unknown", observed: { published: false } })
    expect(git(s.bare, "rev-parse", "main").trim()).toBe(s.before)
    expect(pushes(s.control)).toBe(1)
  }, 180_000)

  it("killed during git push, the orphaned push finishing later: reconciliation first sees it unpublished (unknown), then reads the remote ref and settles succeeded; one push in all", async () => {
    const s = await killWorkerAt("during-push")
    const early = await observe(s.root, s.requestId)
    expect(data(early)).toMatchObject({ state: "unknown", observed: { published: false } })
    fs.writeFileSync(path.join(s.control, "RELEASE"), "go")
    for (let i = 0; i < 200 && git(s.bare, "rev-parse", "main").trim() !== s.local; i++)
      await new Promise((resolve) => setTimeout(resolve, 50))
    expect(git(s.bare, "rev-parse", "main").trim()).toBe(s.local)
    const cli = await runCli(["workspaces", "reconcile", "--project", s.root, "--request-id", s.requestId, "--json"])
    expect(JSON.parse(cli.stdout).data).toMatchObject({
      state: "succeeded",
      phases: { local_applied: true, published: true }
    })
    expect(pushes(s.control)).toBe(1)
  }, 180_000)
})
