/**
 * `Processes.exec` on Node (issue 9 §3: "run to completion, bounded output" for vcs and others): no
 * shell, per-stream output bound with `truncated`, the whole group killed at the timeout, a missing
 * executable NOT_FOUND naming it (never a defect).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { nodeProcesses } from "../../adapters/node/NodeProcesses.ts"

const exec = (request: Parameters<typeof nodeProcesses.exec>[0]) =>
  Effect.runPromise(Effect.either(nodeProcesses.exec(request)))

describe("Processes.exec on Node", () => {
  it("runs argv to completion without a shell: exit code, stdout, stderr, stdin, env added to the host's", async () => {
    const result = await exec({
      argv: [
        process.execPath,
        "-e",
        "process.stdin.pipe(process.stdout); process.stderr.write(process.env.AW_X + '|$HOME'); process.stdin.on('end', () => process.exit(3))"
      ],
      cwd: os.tmpdir(),
      env: { AW_X: "set" },
      timeoutMs: 20_000,
      stdin: "in put"
    })
    expect(result._tag).toBe("Right")
    if (result._tag !== "Right") return
    expect(result.right).toEqual({
      exitCode: 3,
      signal: null,
      stdout: "in put",
      stderr: "set|$HOME",
      timedOut: false,
      truncated: false
    })
  })

  it("bounds each stream at maxOutputBytes and says truncated: true", async () => {
    const result = await exec({
      argv: [process.execPath, "-e", "process.stdout.write('x'.repeat(100000))"],
      cwd: os.tmpdir(),
      timeoutMs: 20_000,
      maxOutputBytes: 1000
    })
    expect(result._tag === "Right" && result.right.stdout.length).toBe(1000)
    expect(result._tag === "Right" && result.right.truncated).toBe(true)
  })

  it("kills the process at timeoutMs: timedOut: true, killed by a signal", async () => {
    const result = await exec({
      argv: [process.execPath, "-e", "setInterval(() => {}, 1000)"],
      cwd: os.tmpdir(),
      timeoutMs: 300
    })
    expect(result._tag === "Right" && result.right).toMatchObject({ timedOut: true, exitCode: null, signal: "SIGKILL" })
  })

  it("a missing executable is NOT_FOUND naming it", async () => {
    const result = await exec({ argv: ["aw-no-such-executable-xyz"], cwd: os.tmpdir(), timeoutMs: 5000 })
    expect(result._tag === "Left" && result.left).toMatchObject({
      code: "NOT_FOUND",
      details: { executable: "aw-no-such-executable-xyz" }
    })
  })
})

describe("Processes.resolve on Node", () => {
  it.skipIf(process.platform === "win32")(
    "passes over a missing PATH folder, a folder of the name and a file that is not executable to the first executable file",
    async () => {
      const base = fs.mkdtempSync(path.join(os.tmpdir(), "aw-resolve-"))
      const dirs = ["missing", "folder", "plain", "found", "later"].map((name) => path.join(base, name))
      fs.mkdirSync(path.join(dirs[1]!, "aw-tool"), { recursive: true })
      fs.mkdirSync(dirs[2]!)
      fs.writeFileSync(path.join(dirs[2]!, "aw-tool"), "#!/bin/sh\n", { mode: 0o644 })
      for (const dir of dirs.slice(3)) {
        fs.mkdirSync(dir)
        fs.writeFileSync(path.join(dir, "aw-tool"), "#!/bin/sh\n", { mode: 0o755 })
      }
      const saved = process.env["PATH"]
      process.env["PATH"] = dirs.join(path.delimiter)
      try {
        const found = await Effect.runPromise(nodeProcesses.resolve("aw-tool", path.join(base, "bin")))
        expect(found).toEqual({ _tag: "Found", executable: path.join(dirs[3]!, "aw-tool"), via: "PATH" })
        const none = await Effect.runPromise(nodeProcesses.resolve("aw-none", path.join(base, "bin")))
        expect(none).toEqual({
          _tag: "NotFound",
          searched: [...dirs, path.join(base, "bin")].map((dir) => path.join(dir, "aw-none"))
        })
      } finally {
        if (saved === undefined) delete process.env["PATH"]
        else process.env["PATH"] = saved
        fs.rmSync(base, { recursive: true, force: true })
      }
    }
  )
})
