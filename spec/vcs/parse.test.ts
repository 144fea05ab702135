/** The pure parsers behind workspace_vcs results, on git's and gh's own output shapes. */
import { describe, expect, it } from "vitest"
import { classifyFailure, redactTokens } from "../../core/exec/git.ts"
import { diffFiles, parseGhAuth, parseStatus } from "../../core/tools/vcs/parse.ts"

describe("parsers", () => {
  it("porcelain v2: a repository without commits, a detached HEAD, a conflict and a copy", () => {
    expect(parseStatus("# branch.oid (initial)\0# branch.head main\0? a b.txt\0")).toMatchObject({
      head: null,
      branch: "main",
      detached: false,
      untracked: ["a b.txt"]
    })
    const detached = parseStatus(`# branch.oid ${"1".repeat(40)}\0# branch.head (detached)\0`)
    expect(detached).toMatchObject({ branch: null, detached: true, head: "1".repeat(40), upstream: null, ahead: null })
    const conflict = parseStatus(
      `u AA N... 100644 100644 100644 100644 ${"1".repeat(40)} ${"2".repeat(40)} ${"3".repeat(40)} both added.txt\0`
    )
    expect(conflict.conflicted).toEqual([{ path: "both added.txt", code: "AA" }])
    const copy = parseStatus(
      `2 C. N... 100644 100644 100644 ${"1".repeat(40)} ${"1".repeat(40)} C100 copy.txt\0orig.txt\0? z\0`
    )
    expect(copy.staged).toEqual([{ path: "copy.txt", change: "copied", renamedFrom: "orig.txt" }])
    expect(copy.untracked).toEqual(["z"])
  })

  it("diff files: renames and binaries from the headers", () => {
    const text = [
      "diff --git a/old.txt b/new.txt",
      "similarity index 90%",
      "rename from old.txt",
      "rename to new.txt",
      "@@ -1 +1 @@",
      "-a",
      "+b",
      "diff --git a/img.png b/img.png",
      "Binary files a/img.png and b/img.png differ"
    ].join("\n")
    expect(diffFiles(text)).toEqual([
      { path: "new.txt", oldPath: "old.txt", additions: 1, deletions: 1 },
      { path: "img.png", additions: 0, deletions: 0, binary: true }
    ])
  })

  it("gh auth status (gh 2.x text, on stderr): hosts and users, never the token line", () => {
    const text =
      "github.com\n  ✓ Logged in to github.com as octo (/home/u/.config/gh/hosts.yml)\n  ✓ Token: gho_************************************\n"
    expect(parseGhAuth(text)).toEqual({
      authenticated: true,
      hosts: [{ host: "github.com", user: "octo", tokenSource: "/home/u/.config/gh/hosts.yml" }]
    })
    expect(parseGhAuth("You are not logged into any GitHub hosts. Run gh auth login to authenticate.")).toEqual({
      authenticated: false,
      hosts: []
    })
    expect(redactTokens("token ghp_abcdefghijklmnopqrstuvwxyz0123 leaked")).toBe("token [redacted token] leaked")
  })

  it("git's failures: NOT_A_REPOSITORY, NON_FAST_FORWARD, MERGE_CONFLICT, the identity message, else VCS_FAILED with git's message and exit code", () => {
    const run = (stderr: string) => ({ exitCode: 128, stderr, stdout: "" })
    expect(
      classifyFailure("git status", run("fatal: not a git repository (or any of the parent directories): .git")).code
    ).toBe("NOT_A_REPOSITORY")
    expect(
      classifyFailure(
        "git push",
        run(" ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs")
      ).code
    ).toBe("NON_FAST_FORWARD")
    expect(
      classifyFailure(
        "git commit",
        run("error: Committing is not possible because you have unmerged files.\nhint: Fix them up")
      ).code
    ).toBe("MERGE_CONFLICT")
    const ident = classifyFailure("git commit", run("Author identity unknown\n\n*** Please tell me who you are."))
    expect([ident.code, ident.message.includes("git config user.email")]).toEqual(["VCS_FAILED", true])
    const other = classifyFailure("git checkout x", run("error: pathspec 'x' did not match any file(s) known to git"))
    expect(other).toMatchObject({ code: "VCS_FAILED", details: { command: "git checkout x", exitCode: 128 } })
    expect(other.message).toContain("error: pathspec 'x' did not match")
  })
})
