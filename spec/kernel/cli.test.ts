/** Issue 2 §10, the CLI contract: call, tools, approvals/accept/deny, --root and --set anywhere, refusals. */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseLine, runCli as runCliInProcess } from "../../adapters/cli.ts"
import { openNodeSession } from "../../adapters/node/host.ts"
import { SETTING_KEYS } from "../../core/settings/settings.ts"
import { makeTempDir, openWorkspace, REPO, runCli as runBin, snapshotTree } from "../support/workspace.ts"

/**
 * The CLI's own code in this process, over the real Node host (the same `runCli` the bin's main calls):
 * spawning the bin costs seconds on a loaded machine, so only the tests marked "real bin" spawn it.
 */
const runCli = async (argv: ReadonlyArray<string>) => {
  let stdout = ""
  let stderr = ""
  const code = await runCliInProcess(argv, {
    cwd: REPO,
    open: openNodeSession,
    stdout: (text) => {
      stdout += text
    },
    stderr: (text) => {
      stderr += text
    }
  })
  return { code, stdout, stderr }
}

let dir: string
beforeAll(async () => {
  dir = await makeTempDir("aw-cli-")
})
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true })
})

/** Exactly one JSON value on stdout. */
const onlyJson = (stdout: string) => {
  expect(stdout.trim().length).toBeGreaterThan(0)
  return JSON.parse(stdout)
}

describe("agentic-workspace call", () => {
  it("(real bin) 'prints exactly one envelope as JSON on stdout; exit 0 when ok is true, 1 when false'", async () => {
    const [ok, bad] = await Promise.all([
      runBin(["call", "workspace_notes", '{"action":"write","name":"hello","content":"hi"}', "--root", dir]),
      runBin(["--root", dir, "call", "workspace_notes", '{"action":"read","name":"missing"}'])
    ])
    expect(ok.code).toBe(0)
    expect(onlyJson(ok.stdout)).toEqual({
      protocol: "agentic-workspace/v1",
      ok: true,
      operation: "notes.write",
      summary: "Wrote note hello (3 bytes) at .agentic/notes/hello.md.",
      retention: { importance: "normal", facts: ["note hello saved at .agentic/notes/hello.md"] },
      data: { name: "hello", memory: false, path: ".agentic/notes/hello.md", bytes: 3 }
    })
    expect(await fs.readFile(path.join(dir, ".agentic/notes/hello.md"), "utf8")).toBe("hi\n")
    expect(bad.code).toBe(1)
    expect(onlyJson(bad.stdout)).toMatchObject({ ok: false, operation: "notes.read", error: { code: "NOT_FOUND" } })
  })

  it("bad JSON (exit 1), an unknown setting and an out-of-range --set value (exit 2, as the README says) are refused with one envelope, and nothing is written", async () => {
    const before = await snapshotTree(dir)
    const [json, unknown, range] = await Promise.all([
      runCli(["call", "workspace_notes", "{not json", "--root", dir]),
      runCli([
        "call",
        "workspace_notes",
        '{"action":"write","name":"x","content":"y"}',
        "--root",
        dir,
        "--set",
        "permisionMode=2"
      ]),
      runCli([
        "call",
        "workspace_notes",
        '{"action":"write","name":"x","content":"y"}',
        "--set",
        "permissionMode=7",
        "--root",
        dir
      ])
    ])
    expect(json.code).toBe(1)
    expect(unknown.code).toBe(2)
    expect(range.code).toBe(2)
    for (const run of [json, unknown, range]) {
      expect(onlyJson(run.stdout)).toMatchObject({ ok: false, error: { code: "INVALID_INPUT" } })
    }
    expect(onlyJson(unknown.stdout).error.message).toContain('unknown setting "permisionMode"')
    expect(onlyJson(range.stdout).error.message).toContain(
      "setting permissionMode must be 0 (Manual), 1 (Plan) or 2 (Auto), got 7"
    )
    expect(await snapshotTree(dir)).toEqual(before)
  })

  it("an unreadable root: the agentic_workspace_status tool answers, saying why (exit 1); tools lists only it", async () => {
    const missing = path.join(dir, "no-such-dir")
    const [call, tools] = await Promise.all([
      runCli(["call", "agentic_workspace_status", "{}", "--root", missing]),
      runCli(["tools", "--root", missing])
    ])
    expect(call.code).toBe(1)
    expect(onlyJson(call.stdout)).toMatchObject({
      ok: false,
      error: { code: "RUNTIME_UNAVAILABLE", message: expect.stringContaining("ENOENT") }
    })
    expect(tools.code).toBe(0)
    expect(onlyJson(tools.stdout).map((tool: { name: string }) => tool.name)).toEqual(["agentic_workspace_status"])
  })
})

describe("agentic-workspace tools", () => {
  it("'prints the registered tools as a JSON array of {name, description, inputSchema}'; --set takes any setting by its key", async () => {
    const [plan, auto, badKey] = await Promise.all([
      runCli(["tools", "--root", dir]),
      runCli([
        "tools",
        "--set",
        "permissionMode=2",
        "--root",
        dir,
        "--set",
        "executableAllowlist=git,node",
        "--set",
        'protectedPatterns=["a/**"]'
      ]),
      runCli(["tools", "--root", dir, "--set", "maxToolResultChars=10"])
    ])
    expect(plan.code).toBe(0)
    const listed = onlyJson(plan.stdout) as Array<Record<string, unknown>>
    expect(listed.map((tool) => tool.name)).toEqual([
      "workspace_inspect",
      "workspace_edit",
      "workspace_plan",
      "workspace_notes",
      "workspace_command",
      "workspace_vcs",
      "workspace_tasks"
    ])
    for (const tool of listed) expect(Object.keys(tool).sort()).toEqual(["description", "inputSchema", "name"])
    expect(auto.code).toBe(0)
    expect(onlyJson(auto.stdout).map((tool: { name: string }) => tool.name)).toEqual([
      "workspace_inspect",
      "workspace_edit",
      "workspace_notes",
      "workspace_command",
      "workspace_vcs",
      "workspace_tasks"
    ])
    expect(badKey.code).not.toBe(0)
    expect(badKey.stdout).toBe("")
    expect(badKey.stderr).toContain("maxToolResultChars must be an integer from 1000")
  })
})

describe("--set", () => {
  it("'--set key=value takes any setting by its key': every setting, given as the CLI would read it, is accepted", async () => {
    const values: Record<string, string> = {
      permissionMode: "0",
      allowDestructiveEdits: "true",
      protectedPatterns: "secrets/**,*.pem",
      excludePatterns: "dist/**,*.log",
      maxToolResultChars: "5000",
      maxCommandDurationSeconds: "30",
      searchTimeoutMs: "5000",
      maxFileBytes: "1048576",
      maxJobLogBytes: "1048576",
      executableAllowlist: "git,node",
      maxFetchBytes: "1000000",
      fetchTimeoutMs: "5000",
      duckduckgoUrl: "https://html.duckduckgo.com/html/",
      wikipediaUrl: "https://de.wikipedia.org/w/api.php",
      searxngUrl: "https://searx.example.org",
      commandSandbox: "required",
      browserExecutablePath: "/usr/bin/chromium",
      browserIdleMinutes: "30",
      languageServers: "typescript,python",
      languageServerIdleMinutes: "10",
      languageServerTimeoutMs: "15000",
      workspaceCapabilities: "workspace:commands:v1,workspace:action:commit",
      modelBaseUrl: "http://127.0.0.1:1234/v1",
      modelId: "local-model",
      modelApiKeyEnv: "OPENAI_API_KEY"
    }
    for (const key of SETTING_KEYS) {
      const run = await runCli(["tools", "--root", dir, "--set", `${key}=${values[key] ?? "false"}`])
      expect(run.code, `${key}: ${run.stderr}`).toBe(0)
    }
  })
})

describe("agentic-workspace approvals, accept, deny", () => {
  it("(real bin for accept) 'they print the same text the preprocessor would put in the chat; exit 0 when the record was decided, 1 when refused (NOT_FOUND, TRANSACTION_STATE)'; --root anywhere ('accept ID --root DIR')", async () => {
    const root = await makeTempDir("aw-cli-decide-")
    try {
      const w = await openWorkspace({ permissionMode: 1 }, root)
      const first = (
        await w.call("workspace_plan", { action: "propose", title: "First", objective: "o", steps: ["s"] })
      ).data as { planId: string }
      await w.runtime.dispose()
      const listed = await runCli(["approvals", "--root", root])
      expect(listed.code).toBe(0)
      expect(listed.stdout).toContain("Permission mode: Plan (1).")
      // Issue 17 gave each pending record a second line (what it touches, destructive flag, age).
      expect(listed.stdout).toMatch(
        new RegExp(`1\\. ${first.planId} \\[plan\\] First\\n +destructive: no; staged just now`)
      )
      const accepted = await runBin(["accept", first.planId, "ship", "it", "--root", root])
      expect(accepted.code).toBe(0)
      expect(accepted.stdout).toMatch(
        new RegExp(
          `^<agentic-approval>\\nThe user accepted plan ${first.planId}: First\\.\\nUser note: ship it\\nCarry out the plan now\\. .*\\n</agentic-approval>\\n\\n<agentic-mode>\\nPermission mode: Plan \\(1\\)\\.\\nApproved plan ${first.planId}: "First" .*\\n</agentic-mode>\\n$`
        )
      )
      const again = await runCli(["--root", root, "deny", first.planId, "changed", "my", "mind"])
      expect(again.code).toBe(1)
      expect(again.stdout).toContain("TRANSACTION_STATE")
      const nothing = await runCli(["deny", "--root", root])
      expect(nothing.code).toBe(1)
      expect(nothing.stdout).toContain("NOT_FOUND: Nothing is pending")
      const json = await runCli(["approvals", "--json", "--root", root])
      expect(
        JSON.parse(json.stdout).map((record: { id: string; status: string; note: string }) => [
          record.id,
          record.status,
          record.note
        ])
      ).toEqual([[first.planId, "approved", "ship it"]])
    } finally {
      await fs.rm(root, { recursive: true, force: true })
    }
  })
})

describe("command line parsing", () => {
  it("'Every verb takes --root and --set anywhere on the line'; '--root defaults to the current directory'", () => {
    expect(
      parseLine(["accept", "plan_1", "--root", "ws", "note", "--set", "permissionMode=0", "words"], "/cwd")
    ).toEqual({
      verb: "accept",
      positional: ["plan_1", "note", "words"],
      root: "/cwd/ws",
      rootGiven: true,
      settings: { permissionMode: 0 },
      flags: {},
      errors: []
    })
    expect(parseLine(["--set=executableAllowlist=git,node", "tools", "--root=/abs"], "/cwd")).toMatchObject({
      verb: "tools",
      root: "/abs",
      settings: { executableAllowlist: ["git", "node"] }
    })
    expect(parseLine(["call", "t", "{}"], "/cwd")).toMatchObject({ root: "/cwd", rootGiven: false })
    expect(parseLine(["tools", "--set", "permissionMode"], "/cwd").errors).toEqual([
      '--set takes key=value, got "permissionMode"'
    ])
    expect(parseLine(["tools", "--root"], "/cwd").errors).toEqual(["--root needs a value"])
  })
})
