// workspace_command (availability, run, executables), sentence by sentence (../shared/spec/TOOL_REFERENCE.md "workspace_command" and issue 5).
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { snapshotTree } from "../support/workspace.ts"
import { GRANDCHILDREN, data, eventually, pidsOf, running, tracked } from "./support.ts"

const workspaces = tracked()
afterEach(() => workspaces.cleanup())

describe("workspace_command: availability and actions", () => {
  it("Available only when process execution is enabled (on by default)", async () => {
    const on = await workspaces.open()
    expect(on.runtime.registry.tools.map((tool) => tool.name)).toContain("workspace_command")
    const off = await workspaces.open({ enableProcessExecution: false })
    expect(off.runtime.registry.tools.map((tool) => tool.name)).not.toContain("workspace_command")
    const refused = await off.call("workspace_command", { action: "run", executable: "node", args: ["-v"] })
    expect(refused.ok).toBe(false)
    expect(refused.error?.code).toBe("TOOL_DISABLED")
  })

  it("Actions: run, start, status (optionally tail_chars), cancel", async () => {
    const ws = await workspaces.open()
    const bad = await ws.call("workspace_command", { action: "exec", executable: "node" })
    expect(bad.error?.code).toBe("INVALID_INPUT")
    expect(bad.error?.message).toContain("run, start, status, cancel")
    const listing = ws.runtime.registry.list().find((tool) => tool.name === "workspace_command")!
    expect((listing.inputSchema.properties["action"] as { enum: Array<string> }).enum).toEqual([
      "run",
      "start",
      "status",
      "cancel"
    ])
    expect(Object.keys(listing.inputSchema.properties)).toEqual(
      expect.arrayContaining(["executable", "args", "cwd", "timeout_seconds", "job_id", "tail_chars"])
    )
  })
})

describe("workspace_command: run", () => {
  it("a command that ran and exited non-zero is ok: true with its exit code in the summary", async () => {
    const ws = await workspaces.open()
    const result = await ws.call("workspace_command", {
      action: "run",
      executable: "node",
      args: ["-e", "console.log('out'); console.error('err'); process.exit(3)"]
    })
    expect(result.ok).toBe(true)
    expect(result.summary).toContain("exited with code 3")
    expect(data(result)).toMatchObject({ exitCode: 3, stdout: "out\n", stderr: "err\n", status: "exited" })
    expect(data(result)["jobId"]).toMatch(/^job_[0-9a-f]+$/)
  })

  it("ok: false means it could not run as asked: an unknown executable is NOT_FOUND, and nothing changed on disk", async () => {
    const ws = await workspaces.open({ executableAllowlist: ["*"] })
    const before = await snapshotTree(ws.dir)
    const result = await ws.call("workspace_command", { action: "run", executable: "no-such-program-aw" })
    expect(result.ok).toBe(false)
    expect(result.error?.code).toBe("NOT_FOUND")
    expect(result.error?.message).toContain("no-such-program-aw")
    expect(await snapshotTree(ws.dir)).toEqual(before)
  })

  it("Pass executable and args separately: a shell command line is refused, and arguments reach the program literally (no shell, ever)", async () => {
    const ws = await workspaces.open()
    const before = await snapshotTree(ws.dir)
    const line = await ws.call("workspace_command", { action: "run", executable: "echo hi | cat" })
    expect(line.ok).toBe(false)
    expect(line.error?.code).toBe("INVALID_INPUT")
    expect(line.error?.message).toContain('"executable": "echo"')
    expect(await snapshotTree(ws.dir)).toEqual(before)
    const literal = await ws.call("workspace_command", {
      action: "run",
      executable: "node",
      args: ["-e", "console.log(process.argv[1])", "$HOME && rm -rf / ; `x` | *"]
    })
    expect(data(literal)["stdout"]).toBe("$HOME && rm -rf / ; `x` | *\n")
  })

  it("cwd is workspace-relative, and a cwd outside the root is refused with nothing changed", async () => {
    const ws = await workspaces.open()
    await ws.write("sub/dir/keep.txt", "x")
    const inside = await ws.call("workspace_command", {
      action: "run",
      executable: "node",
      args: ["-e", "console.log(process.cwd())"],
      cwd: "sub/dir"
    })
    expect(data(inside)["stdout"]).toBe(`${path.join(ws.dir, "sub/dir")}\n`)
    expect(data(inside)["cwd"]).toBe("sub/dir")
    const before = await snapshotTree(ws.dir)
    for (const cwd of ["..", "../..", "/tmp", "sub/../../x"]) {
      const out = await ws.call("workspace_command", { action: "run", executable: "node", args: ["-v"], cwd })
      expect(out.ok, cwd).toBe(false)
      expect(out.error?.code, cwd).toBe("PATH_ESCAPE")
    }
    const missing = await ws.call("workspace_command", { action: "run", executable: "node", args: ["-v"], cwd: "nope" })
    expect(missing.error?.code).toBe("INVALID_INPUT")
    expect(await snapshotTree(ws.dir)).toEqual(before)
  })

  it("Full output is stored under .agentic/jobs/<job-id>/, and the result stays within maxToolResultChars with the full logs as artifacts", async () => {
    const ws = await workspaces.open({ maxToolResultChars: 5000 })
    const result = await ws.call("workspace_command", {
      action: "run",
      executable: "node",
      args: [
        "-e",
        "for (let i = 0; i < 5000; i++) console.log('line ' + i + ' \"quoted\" é'); console.error('E'.repeat(30000))"
      ]
    })
    expect(result.ok).toBe(true)
    expect(JSON.stringify(result).length).toBeLessThanOrEqual(5000)
    const id = data(result)["jobId"] as string
    const full = await ws.read(`.agentic/jobs/${id}/stdout.log`)
    expect(full.split("\n")).toHaveLength(5001)
    expect(full.endsWith(data(result)["stdout"])).toBe(true)
    expect(data(result)["stdout"]).toContain("line 4999")
    expect(data(result)["stdoutTruncated"]).toBe(true)
    expect(result.summary).toContain("full logs are the artifacts")
    const artifacts = result.artifacts!
    expect(artifacts.map((artifact) => artifact.path)).toEqual([
      `.agentic/jobs/${id}/stdout.log`,
      `.agentic/jobs/${id}/stderr.log`
    ])
    for (const artifact of artifacts) {
      const bytes = fs.readFileSync(path.join(ws.dir, artifact.path))
      expect(artifact.bytes).toBe(bytes.length)
      expect(artifact.sha256).toBe(createHash("sha256").update(bytes).digest("hex"))
    }
  })

  it("results stay within maxToolResultChars with long arguments too (job.json keeps them all)", async () => {
    const ws = await workspaces.open({ maxToolResultChars: 5000 })
    const args = [
      "-e",
      "console.log(process.argv.length)",
      ...Array.from({ length: 100 }, (_, index) => `${index}${"a".repeat(1000)}`)
    ]
    for (const action of ["run", "start"]) {
      const result = await ws.call("workspace_command", { action, executable: "node", args })
      expect(result.ok).toBe(true)
      expect(JSON.stringify(result).length).toBeLessThanOrEqual(5000)
      expect(data(result)["argsTruncated"]).toBe(true)
      const id = data(result)["jobId"] as string
      expect(JSON.parse(await ws.read(`.agentic/jobs/${id}/job.json`)).args).toEqual(args)
      const status = await ws.call("workspace_command", { action: "status", job_id: id, tail_chars: 20_000 })
      expect(JSON.stringify(status).length).toBeLessThanOrEqual(5000)
    }
  })

  const LEAVES_A_CHILD = {
    action: "run",
    executable: "node",
    args: [
      "-e",
      "const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); c.unref(); console.log(c.pid)"
    ]
  }

  it("a foreground run ends what its command left behind in its process group, and says so (sandboxed: the namespace ends with it)", async () => {
    const ws = await workspaces.open()
    const result = await ws.call("workspace_command", LEAVES_A_CHILD)
    expect(result.ok).toBe(true)
    expect(data(result)["sandboxed"]).toBe(true)
    expect(result.summary).toContain("left processes behind")
    // A command that leaves nothing behind is not said to.
    const clean = await ws.call("workspace_command", {
      action: "run",
      executable: "node",
      args: ["-e", "console.log(1)"]
    })
    expect(clean.summary).not.toContain("left processes behind")
  })

  it("a foreground run ends what its command left behind (commandSandbox off: it checks the pid the command printed after the run ended, which cannot be mapped out of a PID namespace then)", async () => {
    const ws = await workspaces.open({ commandSandbox: "off" })
    const result = await ws.call("workspace_command", LEAVES_A_CHILD)
    expect(result.ok).toBe(true)
    expect(data(result)["sandboxed"]).toBe(false)
    expect(result.summary).toContain("left processes behind")
    expect(running(Number(String(data(result)["stdout"]).trim()))).toBe(false)
  })
})

describe("workspace_command: interruption", () => {
  it("a foreground run whose call is interrupted by the host ends its whole process group (recorded as cancelled) (commandSandbox off: it reads the pids the command printed after the interruption ended them, which cannot be mapped out of a PID namespace then)", async () => {
    const ws = await workspaces.open({ commandSandbox: "off" })
    const call = ws.runtime.registry.call("workspace_command", {
      action: "run",
      executable: "node",
      args: GRANDCHILDREN
    })
    await ws.run(call.pipe(Effect.timeout("3 seconds"), Effect.ignore))
    const id = fs.readdirSync(path.join(ws.dir, ".agentic/jobs"))[0]!
    const pids = await pidsOf(ws, id)
    expect(pids).toHaveLength(3)
    expect(await eventually(() => pids.every((pid) => !running(pid)))).toBe(true)
    expect(
      await eventually(
        async () => data(await ws.call("workspace_command", { action: "status", job_id: id }))["status"] === "cancelled"
      )
    ).toBe(true)
  })
})

describe("workspace_command: executables", () => {
  it("Executables are resolved on PATH first, then in the project's node_modules/.bin (data.resolvedExecutable)", async () => {
    const ws = await workspaces.open({ executableAllowlist: ["*"] })
    const script = "#!/usr/bin/env node\nconsole.log('from bin', process.argv.slice(2).join(','))\n"
    await ws.write("node_modules/.bin/aw-local-tool", script)
    await ws.write("node_modules/.bin/node", script)
    fs.chmodSync(path.join(ws.dir, "node_modules/.bin/aw-local-tool"), 0o755)
    fs.chmodSync(path.join(ws.dir, "node_modules/.bin/node"), 0o755)
    const local = await ws.call("workspace_command", { action: "run", executable: "aw-local-tool", args: ["a", "b"] })
    expect(data(local)["stdout"]).toBe("from bin a,b\n")
    expect(data(local)["resolvedExecutable"]).toBe(path.join(ws.dir, "node_modules/.bin/aw-local-tool"))
    const node = await ws.call("workspace_command", {
      action: "run",
      executable: "node",
      args: ["-e", "console.log('real node')"]
    })
    expect(data(node)["stdout"]).toBe("real node\n")
    expect(data(node)["resolvedExecutable"]).not.toContain("node_modules")
  })

  it("the executable allowlist is enforced at run time: EXECUTABLE_DENIED names the executable; '*' allows any", async () => {
    const ws = await workspaces.open({ executableAllowlist: ["git"] })
    const before = await snapshotTree(ws.dir)
    const denied = await ws.call("workspace_command", { action: "start", executable: "node", args: ["-v"] })
    expect(denied.ok).toBe(false)
    expect(denied.error?.code).toBe("EXECUTABLE_DENIED")
    expect(denied.error?.message).toContain('"node"')
    expect(denied.error?.details).toMatchObject({ executable: "node" })
    expect(await snapshotTree(ws.dir)).toEqual(before)
    const any = await workspaces.open({ executableAllowlist: ["*"] })
    expect((await any.call("workspace_command", { action: "run", executable: "node", args: ["-v"] })).ok).toBe(true)
  })

  it("a path executable runs only from inside the workspace and only when the allowlist names it exactly", async () => {
    const ws = await workspaces.open({ executableAllowlist: ["node", "./tool.js"] })
    await ws.write("tool.js", "#!/usr/bin/env node\nconsole.log('tool')\n")
    fs.chmodSync(path.join(ws.dir, "tool.js"), 0o755)
    expect(data(await ws.call("workspace_command", { action: "run", executable: "./tool.js" }))["stdout"]).toBe(
      "tool\n"
    )
    expect((await ws.call("workspace_command", { action: "run", executable: "/usr/bin/env" })).error?.code).toBe(
      "EXECUTABLE_DENIED"
    )
    // A file that cannot be executed could not run as asked: ok false, and the job says failed.
    const ws2 = await workspaces.open({ executableAllowlist: ["./plain.js"] })
    await ws2.write("plain.js", "console.log('x')\n")
    const failed = await ws2.call("workspace_command", { action: "run", executable: "./plain.js" })
    expect(failed.ok).toBe(false)
    expect(failed.error?.code).toBe("IO_ERROR")
    expect(failed.error?.message).toContain("EACCES")
    const failedStatus = await ws2.call("workspace_command", {
      action: "status",
      job_id: (failed.error?.details as { jobId: string }).jobId
    })
    expect(data(failedStatus)["status"]).toBe("failed")
    const star = await workspaces.open({ executableAllowlist: ["*"] })
    expect((await star.call("workspace_command", { action: "run", executable: "../outside" })).error?.code).toBe(
      "PATH_ESCAPE"
    )
  })
})
