/**
 * `Processes.exec` on Node (issue 9 §3: "run to completion, bounded output" for vcs and others): no
 * shell, per-stream output bound with `truncated`, the whole group killed at the timeout, a missing
 * executable NOT_FOUND naming it (never a defect).
 */
import * as os from "node:os"
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
