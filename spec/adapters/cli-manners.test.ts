/**
 * Issue 17, Deliver 6 and 7: the terminal channel shows what it decides (approvals lists kind, title,
 * files or argv, destructive flag and age; `approvals show ID` the full diff; `--json` every live
 * record; the mode is the running server's, from .agentic/host.json, with a warning when this
 * command's settings differ), and CLI manners (--help per verb without side effects, --version,
 * arguments from stdin or a file).
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { type CliHost, runCli as runCliInProcess } from "../../adapters/cli.ts"
import { VERB_HELP } from "../../adapters/cliHelp.ts"
import { writeHostState } from "../../adapters/hostState.ts"
import { openNodeSession, openNodeWorkspace } from "../../adapters/node/host.ts"
import { VERSION } from "../../adapters/version.ts"
import type { WorkspaceRuntime } from "../../core/runtime.ts"
import { makeTempDir, REPO, runCli as runBin } from "../support/workspace.ts"

const dirs: Array<string> = []
afterAll(async () => {
  await Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true })))
})
const tempDir = async () => {
  const dir = await makeTempDir("aw-cli17-")
  dirs.push(dir)
  return dir
}

/** The CLI in this process over the real Node host; `opened` counts the workspaces it opened. */
const inProcess = (cwd: string) => {
  const state = { opened: 0 }
  const run = async (argv: ReadonlyArray<string>, extra: Partial<CliHost> = {}) => {
    let stdout = ""
    let stderr = ""
    const code = await runCliInProcess(argv, {
      cwd,
      open: (root, settings) => {
        state.opened++
        return openNodeSession(root, settings)
      },
      stdout: (text) => void (stdout += text),
      stderr: (text) => void (stderr += text),
      readFile: (file) => fs.readFile(path.resolve(cwd, file), "utf8"),
      verbs: { mcp: async () => ((state.opened += 100), 0) },
      ...extra
    })
    return { code, stdout, stderr }
  }
  return { run, state }
}

describe("CLI manners (issue 17, Deliver 7)", () => {
  it("--help and -h per verb print that verb's help and do nothing else: no workspace opened, no server started, no .agentic/ written", async () => {
    const dir = await tempDir()
    const { run, state } = inProcess(dir)
    for (const verb of ["mcp", "call", "tools", "approvals", "accept", "deny", "host", "workspaces"]) {
      for (const flag of ["--help", "-h"]) {
        const result = await run([verb, flag, "--root", dir])
        expect(result.code, `${verb} ${flag}`).toBe(0)
        expect(result.stdout, `${verb} ${flag}`).toBe(VERB_HELP[verb])
        expect(result.stdout).toContain(`agentic-workspace ${verb}`)
      }
    }
    expect(state.opened).toBe(0)
    await expect(fs.access(path.join(dir, ".agentic"))).rejects.toThrow()
  })

  it("issue 31: mcp refuses a flag it does not know with exit 2 before opening or serving; the known ones still reach the verb", async () => {
    const dir = await tempDir()
    const { run, state } = inProcess(dir)
    for (const argv of [
      ["mcp", "--bogus"],
      ["mcp", "--htpp", "8080"],
      ["mcp", "--port", "0"]
    ]) {
      const result = await run([...argv, "--root", dir])
      expect(result.code, argv.join(" ")).toBe(2)
      expect(result.stderr).toContain(`mcp does not take --${argv[1]!.slice(2)}`)
      expect(result.stderr).toContain("--http, --token, --review-port")
    }
    expect(state.opened).toBe(0)
    await expect(fs.access(path.join(dir, ".agentic"))).rejects.toThrow()
    expect((await run(["mcp", "--http", "0", "--review-port", "0", "--root", dir])).code).toBe(0)
    expect(state.opened).toBe(100)
  })

  it("issue 31: workspaces takes --root as every verb does (or --project; both naming different folders is refused), and help lists it", async () => {
    const dir = await tempDir()
    const { run } = inProcess(dir)
    const other = await tempDir()
    const byRoot = await run(["workspaces", "status", "--root", dir, "--json"])
    const byProject = await run(["workspaces", "status", "--project", dir, "--json"])
    expect(byRoot.code, byRoot.stdout).toBe(byProject.code)
    expect(JSON.parse(byRoot.stdout).operation).toBe(JSON.parse(byProject.stdout).operation)
    expect(JSON.stringify(JSON.parse(byRoot.stdout).error ?? null)).not.toContain("--project")
    const both = await run(["workspaces", "status", "--root", dir, "--project", other, "--json"])
    expect(both.code).toBe(2)
    expect(JSON.parse(both.stdout).error.message).toContain("name different folders")
    const neither = await run(["workspaces", "status", "--json"])
    expect(neither.code).toBe(2)
    expect(JSON.parse(neither.stdout).error.message).toContain("--root DIR (or --project DIR)")
    expect((await run(["help"])).stdout).toContain("workspaces SUB")
  })

  it("(real bin) --version prints the package's version; mcp --help does not start the server", async () => {
    const pkg = JSON.parse(await fs.readFile(path.join(REPO, "package.json"), "utf8")) as { version: string }
    expect(VERSION).toBe(pkg.version)
    const dir = await tempDir()
    const [version, help] = await Promise.all([runBin(["--version"]), runBin(["mcp", "--help", "--root", dir])])
    expect(version).toMatchObject({ code: 0, stdout: `${pkg.version}\n` })
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("agentic-workspace mcp [--http PORT")
    expect(help.stderr).toBe("")
    await expect(fs.access(path.join(dir, ".agentic"))).rejects.toThrow()
  })

  it("(real bin) call TOOL - reads the JSON arguments from stdin; call TOOL @FILE from a file, so large contents are not cut by the argument limit", async () => {
    const dir = await tempDir()
    const fromStdin = await runBin(["call", "workspace_notes", "-", "--root", dir], {
      input: '{"action":"write","name":"piped","content":"from stdin"}'
    })
    expect(fromStdin.code, fromStdin.stdout).toBe(0)
    expect(await fs.readFile(path.join(dir, ".agentic/notes/piped.md"), "utf8")).toBe("from stdin\n")
    // 1 MB of content: far past the 128 KiB a single argument may hold on Linux.
    const big = "x".repeat(1_000_000)
    const args = path.join(dir, "args.json")
    await fs.writeFile(
      args,
      JSON.stringify({ action: "preview", operations: [{ type: "create", path: "big.txt", content: big }] })
    )
    const fromFile = await runBin(["call", "workspace_edit", `@${args}`, "--root", dir])
    expect(fromFile.code, fromFile.stdout.slice(0, 500)).toBe(0)
    expect(JSON.parse(fromFile.stdout)).toMatchObject({ ok: true, operation: "edit.preview" })
    const missing = await runBin(["call", "workspace_notes", "@nope.json", "--root", dir])
    expect(missing.code).toBe(1)
    expect(JSON.parse(missing.stdout).error.message).toMatch(/could not be read .*@FILE/)
  })
})

describe("the terminal channel shows what it decides (issue 17, Deliver 6)", () => {
  it("approvals lists each pending record with kind, title, files, destructive flag and age; show ID prints the full diff; --json keeps every record with id and status", async () => {
    const dir = await tempDir()
    await fs.writeFile(path.join(dir, "old.txt"), "one\ntwo\n")
    const { run } = inProcess(dir)
    const staged = JSON.parse(
      (
        await run([
          "call",
          "workspace_edit",
          JSON.stringify({
            action: "apply",
            operations: [
              { type: "replace", path: "old.txt", search: "two", replacement: "TWO" },
              { type: "create", path: "new.txt", content: "fresh\n" }
            ]
          }),
          "--root",
          dir,
          "--set",
          "permissionMode=0"
        ])
      ).stdout
    )
    const id = staged.data.approval.id as string
    const listed = await run(["approvals", "--root", dir, "--set", "permissionMode=0"])
    expect(listed.code).toBe(0)
    expect(listed.stdout).toContain(`1. ${id} [transaction] Commit tx_`)
    expect(listed.stdout).toMatch(/files: (old\.txt, new\.txt|new\.txt, old\.txt); destructive: no; staged just now/)
    expect(listed.stdout).toContain(`npx agentic-workspace accept ID --root ${await fs.realpath(dir)}`)

    const shown = await run(["approvals", "show", id, "--root", dir])
    expect(shown.code).toBe(0)
    expect(shown.stdout).toContain("-two")
    expect(shown.stdout).toContain("+TWO")
    expect(shown.stdout).toContain("+fresh")
    expect(shown.stdout).toContain(`npx agentic-workspace accept ${id} --root`)

    await run(["deny", id, "not now", "--root", dir])
    const json = JSON.parse((await run(["approvals", "--json", "--root", dir])).stdout) as Array<{
      id: string
      status: string
    }>
    expect(json.find((record) => record.id === id)).toMatchObject({ id, status: "denied" })
    expect((await run(["approvals", "show", "approval_nope", "--root", dir])).code).toBe(1)
  })

  it("a staged command shows its argv", async () => {
    const dir = await tempDir()
    const { run } = inProcess(dir)
    const staged = JSON.parse(
      (
        await run([
          "call",
          "workspace_command",
          '{"action":"run","executable":"node","args":["-e","1 + 1"]}',
          "--root",
          dir,
          "--set",
          "permissionMode=0"
        ])
      ).stdout
    )
    expect(staged.data.status, JSON.stringify(staged).slice(0, 400)).toBe("pending_approval")
    const listed = await run(["approvals", "--root", dir])
    expect(listed.stdout).toMatch(/argv: \S*node -e '1 \+ 1'; destructive: no; staged just now/)
  })

  it("the CLI reports the running server's mode from .agentic/host.json and warns when its own settings differ", async () => {
    const dir = await tempDir()
    const server = (await openNodeWorkspace(dir, { permissionMode: 0 })) as WorkspaceRuntime
    await writeHostState(server, { host: "mcp", transport: "stdio", pid: 4242, startedAt: new Date().toISOString() })
    await server.dispose()
    const { run } = inProcess(dir)
    const plain = await run(["approvals", "--root", dir])
    expect(plain.stdout).toContain(
      "Permission mode: Manual (0). (The running mcp server's, from .agentic/host.json: stdio, pid 4242"
    )
    expect(plain.stdout).toContain(
      "Warning: this command runs with settings that differ from the server's (permissionMode: server 0, here 1)"
    )
    const same = await run(["approvals", "--root", dir, "--set", "permissionMode=0"])
    expect(same.stdout).toContain("Permission mode: Manual (0).")
    expect(same.stdout).not.toContain("Warning")
    // A host.json left by a server that no longer runs is not reported as the running server's.
    const gone = await run(["approvals", "--root", dir], { isRunning: () => false })
    expect(gone.stdout).toContain(
      "Permission mode: Plan (1). (.agentic/host.json names server pid 4242, which no longer runs"
    )
  })
})
