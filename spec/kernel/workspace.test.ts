/**
 * Issue 2 §4, the confined workspace service, and the reference's ".agentic/ is readable, not writable":
 * `..`, absolute paths outside, symlink escapes (and dangling links) are refused; .git/**, .agentic/**
 * and configured protectedPatterns are readable but never writable (PROTECTED_PATH).
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { WorkspaceWrites } from "../../core/services/Workspace.ts"
import type { ToolError } from "../../core/protocol/errors.ts"
import { callGated } from "../support/gatedTool.ts"
import { makeTempDir, openWorkspace, snapshotTree, type TempWorkspace } from "../support/workspace.ts"

let w: TempWorkspace
let outside: string
beforeAll(async () => {
  outside = await makeTempDir("aw-outside-")
  await fs.writeFile(path.join(outside, "secret.txt"), "outside secret")
  w = await openWorkspace({ permissionMode: 2, protectedPatterns: ["secrets/**", "*.pem", "./keys/**", "/vault/**"] })
  await w.write("src/a.ts", "export const a = 1\n")
  await w.write(".git/config", "[core]\n")
  await w.write("sub/.git/HEAD", "ref: main\n")
  await w.write(".agentic/MEMORY.md", "memory\n")
  await w.write(".agentic/approvals/state.json", '{"version":1,"records":[]}\n')
  await w.write("secrets/token.txt", "t0ken")
  await w.write("deep/dir/key.pem", "-----BEGIN-----")
  await w.write("keys/a.key", "k")
  await w.write("vault/b.key", "v")
  await fs.symlink(outside, path.join(w.dir, "out-dir"))
  await fs.symlink(path.join(outside, "secret.txt"), path.join(w.dir, "out-file"))
  await fs.symlink(path.join(outside, "does-not-exist.txt"), path.join(w.dir, "dangling"))
  await fs.symlink("missing-inside.txt", path.join(w.dir, "dangling-inside"))
  await fs.symlink(".agentic", path.join(w.dir, "agentic-link"))
  await fs.symlink(".git", path.join(w.dir, "git-link"))
  await fs.symlink("src", path.join(w.dir, "src-link"))
  await fs.symlink(".agentic/approvals/state.json", path.join(w.dir, "state-link"))
})
afterAll(async () => {
  await w.dispose()
  await fs.rm(outside, { recursive: true, force: true })
})

const bytes = (text: string) => new TextEncoder().encode(text)
const text = (data: Uint8Array) => new TextDecoder().decode(data)
/** The ToolError of a Workspace operation that must fail. */
const fails = <A>(use: (ws: typeof WorkspaceWrites.Service) => Effect.Effect<A, ToolError>) =>
  w.run(Effect.flip(Effect.flatMap(WorkspaceWrites, use)))
const succeeds = <A>(use: (ws: typeof WorkspaceWrites.Service) => Effect.Effect<A, ToolError>) =>
  w.run(Effect.flatMap(WorkspaceWrites, use))

/** Every mutating Workspace operation on one path. */
const writers: Array<
  [string, (p: string) => (ws: typeof WorkspaceWrites.Service) => Effect.Effect<unknown, ToolError>]
> = [
  ["write", (p) => (ws) => ws.write(p, bytes("x"))],
  ["mkdir", (p) => (ws) => ws.mkdir(p, { recursive: true })],
  ["remove", (p) => (ws) => ws.remove(p, { recursive: true })],
  ["rename from", (p) => (ws) => ws.rename(p, "renamed.txt")],
  ["rename to", (p) => (ws) => ws.rename("src/a.ts", p)],
  ["chmod", (p) => (ws) => ws.chmod(p, 0o600)]
]

describe("confinement: 'every path resolved inside the root'", () => {
  it("relative paths are normalised ('a/../b', './x', an absolute path inside the root)", async () => {
    expect(await succeeds((ws) => ws.resolve("src/../src/./a.ts"))).toBe("src/a.ts")
    expect(await succeeds((ws) => ws.resolve(path.join(w.dir, "src/a.ts")))).toBe("src/a.ts")
    expect(await succeeds((ws) => ws.resolve("src-link/a.ts"))).toBe("src-link/a.ts")
    expect(text(await succeeds((ws) => ws.read("src-link/a.ts")))).toBe("export const a = 1\n")
  })

  const escapes: Array<[string, string]> = [
    ["'..' climbing out", "../x.txt"],
    ["'..' in the middle", "src/../../x.txt"],
    ["an absolute path outside", "/etc/passwd"],
    ["a Windows drive path", "C:\\Windows\\x"],
    ["a UNC path", "//server/share"],
    ["a symlink whose target leaves the root (directory)", "out-dir/secret.txt"],
    ["a symlink whose target leaves the root (file)", "out-file"],
    ["a new file below a symlink that leaves the root", "out-dir/new.txt"],
    ["a dangling symlink pointing outside", "dangling"],
    ["a dangling symlink inside the root", "dangling-inside"]
  ]
  for (const [what, given] of escapes) {
    it(`${what} (${given}) is refused with PATH_ESCAPE naming the path, for reads and writes, and nothing is written`, async () => {
      const before = { inside: await snapshotTree(w.dir), outside: await snapshotTree(outside) }
      for (const use of [
        (ws: typeof WorkspaceWrites.Service) => ws.read(given),
        (ws: typeof WorkspaceWrites.Service) => ws.write(given, bytes("pwned"))
      ]) {
        const error = await fails(use)
        expect(error.code).toBe("PATH_ESCAPE")
        expect(error.message).toContain(given)
        expect(error.details).toMatchObject({ field: "path", path: given })
      }
      expect({ inside: await snapshotTree(w.dir), outside: await snapshotTree(outside) }).toEqual(before)
    })
  }

  it("a NUL byte is INVALID_INPUT", async () => {
    expect((await fails((ws) => ws.read("a\0b"))).code).toBe("INVALID_INPUT")
  })
})

describe("protection: '.git/**, .agentic/** and configured protected globs are readable but never writable'", () => {
  const protectedPaths: Array<[string, string]> = [
    [".git/config", ".git/**"],
    ["sub/.git/HEAD", "a nested .git/"],
    [".agentic/MEMORY.md", ".agentic/**"],
    [".agentic/approvals/state.json", "the approvals store"],
    [".agentic/new/file.txt", "a new file under .agentic/"],
    ["secrets/token.txt", "protectedPatterns secrets/**"],
    ["deep/dir/key.pem", "protectedPatterns *.pem (any depth)"],
    ["agentic-link/approvals/state.json", "a symlink inside the root into .agentic/"],
    ["git-link/config", "a symlink inside the root into .git/"],
    ["./.agentic/../.agentic/MEMORY.md", "a roundabout path into .agentic/"],
    ["state-link", "a file symlink onto the approvals store"],
    [".AGENTIC/approvals/state.json", ".agentic/ in another case (case-insensitive filesystems)"],
    [".Git/config", ".git/ in another case"],
    ["keys/a.key", "protectedPatterns ./keys/** (leading ./)"],
    ["vault/b.key", "protectedPatterns /vault/** (leading /)"]
  ]
  for (const [given, why] of protectedPaths) {
    it(`${given} (${why}): every write is PROTECTED_PATH and nothing changes on disk`, async () => {
      const before = await snapshotTree(w.dir)
      for (const [name, use] of writers) {
        const error = await fails(use(given))
        expect(error.code, name).toBe("PROTECTED_PATH")
      }
      expect(await snapshotTree(w.dir)).toEqual(before)
    })
  }

  it("'workspace_inspect — read, list, search, semantic_search, find, stat — reads them like any other path': read, list and stat succeed", async () => {
    expect(text(await succeeds((ws) => ws.read(".agentic/MEMORY.md")))).toBe("memory\n")
    expect(text(await succeeds((ws) => ws.read(".git/config")))).toBe("[core]\n")
    expect(text(await succeeds((ws) => ws.read("secrets/token.txt")))).toBe("t0ken")
    expect(text(await succeeds((ws) => ws.read("deep/dir/key.pem")))).toBe("-----BEGIN-----")
    expect(text(await succeeds((ws) => ws.read("agentic-link/MEMORY.md")))).toBe("memory\n")
    expect((await succeeds((ws) => ws.list(".agentic"))).map((entry) => entry.name).sort()).toEqual([
      "MEMORY.md",
      "approvals"
    ])
    expect((await succeeds((ws) => ws.stat(".git/config")))?.type).toBe("file")
  })

  it("the workspace root itself cannot be written or removed", async () => {
    expect((await fails((ws) => ws.remove("", { recursive: true }))).code).toBe("PROTECTED_PATH")
    expect((await fails((ws) => ws.remove(".", { recursive: true }))).code).toBe("PROTECTED_PATH")
  })

  it("'A write to any of those paths still fails with PROTECTED_PATH, whichever tool attempts it': approval records cannot be written through a tool (real gate, Auto mode)", async () => {
    const before = await snapshotTree(w.dir)
    for (const target of [
      ".agentic/approvals/state.json",
      "agentic-link/approvals/state.json",
      ".git/config",
      "secrets/new.txt"
    ]) {
      const result = await callGated(w.runtime, {
        action: "write",
        path: target,
        content: '{"version":1,"records":[{"status":"approved"}]}'
      })
      expect(result.ok).toBe(false)
      expect(result.error?.code).toBe("PROTECTED_PATH")
    }
    expect(await snapshotTree(w.dir)).toEqual(before)
  })

  it("an ordinary path stays writable", async () => {
    await succeeds((ws) => ws.write("src/b.ts", bytes("b")))
    expect(await w.read("src/b.ts")).toBe("b")
    await succeeds((ws) => ws.write("src-link/c.ts", bytes("c")))
    expect(await w.read("src/c.ts")).toBe("c")
  })
})
