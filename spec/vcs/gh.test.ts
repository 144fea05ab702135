/**
 * workspace_vcs GitHub actions with the real gh (Debian 2.23) against a loopback HTTPS stand-in of the
 * GitHub endpoints it calls: "gh_auth", "issue_list, issue_create", "pr_list, pr_create, pr_diff".
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { preprocess } from "../../core/gate/preprocess.ts"
import { makeTempDir } from "../support/workspace.ts"
import { startGhServer } from "./ghServer.ts"
import { data, git, repoState, tracked } from "./support.ts"

const TOKEN = "ghp_specTokenThatMustNeverAppear0123456789"
let server: Awaited<ReturnType<typeof startGhServer>>
let dir: string
const saved: Record<string, string | undefined> = {}
const setEnv = (values: Record<string, string>) => {
  for (const [key, value] of Object.entries(values)) {
    saved[key] = process.env[key]
    process.env[key] = value
  }
}

beforeAll(async () => {
  dir = await makeTempDir("aw-vcs-gh-")
  server = await startGhServer(dir, TOKEN)
  // gh inherits the host environment: a test CA, an Enterprise host that is the stand-in, and its token.
  setEnv({
    SSL_CERT_FILE: server.ca,
    GH_HOST: server.host,
    GH_ENTERPRISE_TOKEN: TOKEN,
    GH_CONFIG_DIR: path.join(dir, "gh-config"),
    ...server.repoEnv
  })
})
afterAll(async () => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key]
    else process.env[key] = value
  }
  await server.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

const t = tracked()
afterEach(() => t.cleanup())

/** A repository whose origin is the stand-in's octo/demo, with a feature branch. */
const ghRepo = async (settings: Record<string, unknown> = {}) => {
  const ws = await t.repo(settings)
  git(ws.dir, "remote", "add", "origin", server.remoteUrl)
  git(ws.dir, "update-ref", "refs/remotes/origin/main", "HEAD")
  git(ws.dir, "branch", "feature")
  return ws
}

describe("workspace_vcs with gh (real gh against a loopback GitHub stand-in)", () => {
  it("'gh_auth': whether gh is authenticated, for which host and user; never a token", async () => {
    const ws = await ghRepo()
    const result = await ws.call("workspace_vcs", { action: "gh_auth" })
    expect(result.ok).toBe(true)
    expect(data(result)).toEqual({
      authenticated: true,
      hosts: [{ host: server.host, user: "octo", tokenSource: "GH_ENTERPRISE_TOKEN" }]
    })
    expect(JSON.stringify(result)).not.toContain(TOKEN)
    expect(server.requests.every((request) => request.authorization === `token ${TOKEN}`)).toBe(true)
  })

  it("gh_auth without a token says not authenticated (and still no token)", async () => {
    const ws = await ghRepo()
    const token = process.env["GH_ENTERPRISE_TOKEN"]
    delete process.env["GH_ENTERPRISE_TOKEN"]
    try {
      const result = await ws.call("workspace_vcs", { action: "gh_auth" })
      expect(result.ok).toBe(true)
      expect(data(result)["authenticated"]).toBe(false)
      expect(result.summary).toContain("gh auth login")
    } finally {
      process.env["GH_ENTERPRISE_TOKEN"] = token
    }
  })

  it("'issue_list, issue_create': issue_create is gated (Manual: staged; gh never ran) and, once approved, creates the issue; issue_list lists it", async () => {
    const ws = await ghRepo({ permissionMode: 0 })
    const before = server.requests.length
    const args = { action: "issue_create", title: "Crash on start", body: "Steps:\n1. run it" }
    const staged = await ws.call("workspace_vcs", args)
    expect(data(staged)["status"]).toBe("pending_approval")
    expect(data(staged)["approval"]).toMatchObject({
      kind: "vcs",
      destructive: false,
      resume: { tool: "workspace_vcs", arguments: args }
    })
    expect(data(staged)["argv"]).toEqual(["gh", "issue", "create", "--title=Crash on start", "--body-file=-"])
    expect(server.requests.length).toBe(before)
    expect(server.state.issues).toEqual([])
    await ws.run(preprocess(`/accept ${data(staged)["approval"]["id"]}`))
    const created = await ws.call("workspace_vcs", args)
    expect(created.ok).toBe(true)
    const issue = server.state.issues.at(-1)!
    expect(issue).toMatchObject({ title: "Crash on start", body: "Steps:\n1. run it" })
    expect(created.summary).toBe(`Created issue #${issue.number}: ${issue.url}`)
    expect(data(created)).toEqual({ number: issue.number, url: issue.url, title: "Crash on start" })
    expect(created.retention.facts).toContain(`issue #${issue.number} ${issue.url}`)
    const listed = await ws.call("workspace_vcs", { action: "issue_list" })
    expect(listed.ok).toBe(true)
    expect(data(listed)["issues"]).toContainEqual(
      expect.objectContaining({
        number: issue.number,
        title: "Crash on start",
        author: "octo",
        state: "OPEN",
        url: issue.url
      })
    )
    expect(listed.retention.omit_when_summarizing).toEqual(["issues"])
  })

  it("'pr_list, pr_create, pr_diff': pr_create (Auto) opens a pull request with base, head and draft; pr_list lists it; pr_diff pages its diff", async () => {
    const ws = await ghRepo()
    const created = await ws.call("workspace_vcs", {
      action: "pr_create",
      title: "Add feature",
      body: "Does X",
      base: "main",
      head: "feature",
      draft: true
    })
    expect(created.ok).toBe(true)
    const pull = server.state.pulls.at(-1)!
    expect(pull).toMatchObject({
      title: "Add feature",
      body: "Does X",
      headRefName: "feature",
      baseRefName: "main",
      isDraft: true
    })
    expect(created.summary).toBe(`Created pull request #${pull.number}: ${pull.url}`)
    pull.diff =
      Array.from(
        { length: 30 },
        (_, index) => `diff --git a/f${index} b/f${index}\n--- a/f${index}\n+++ b/f${index}\n@@ -1 +1 @@\n-old\n+new`
      ).join("\n") + "\n"
    const listed = await ws.call("workspace_vcs", { action: "pr_list" })
    expect(data(listed)["pullRequests"]).toContainEqual(
      expect.objectContaining({ number: pull.number, headRefName: "feature", baseRefName: "main", isDraft: true })
    )
    const first = await ws.call("workspace_vcs", { action: "pr_diff", pull_request_number: pull.number, limit: 60 })
    expect(first.ok).toBe(true)
    expect(data(first)).toMatchObject({
      pullRequestNumber: pull.number,
      offset: 0,
      returned: 60,
      totalLines: 180,
      nextOffset: 60
    })
    expect(data(first)["files"]).toHaveLength(30)
    const stale = await ws.call("workspace_vcs", { action: "pr_diff", pull_request_number: pull.number, offset: 60 })
    expect(stale.error?.code).toBe("INVALID_INPUT")
    const second = await ws.call("workspace_vcs", {
      action: "pr_diff",
      pull_request_number: pull.number,
      offset: 60,
      limit: 200,
      snapshot: data(first)["snapshot"]
    })
    expect(data(second)).toMatchObject({ offset: 60, returned: 120, nextOffset: null })
    const missing = await ws.call("workspace_vcs", { action: "pr_diff", pull_request_number: 9999 })
    expect(missing.error?.code).toBe("VCS_FAILED")
  })

  for (const [name, args, created] of [
    [
      "issue_create",
      { action: "issue_create", title: "Cell", body: "b" },
      () => server.state.issues.filter((issue) => issue.title === "Cell").length
    ],
    [
      "pr_create",
      { action: "pr_create", title: "Cell", head: "feature", base: "main" },
      () => server.state.pulls.filter((pull) => pull.title === "Cell").length
    ]
  ] as const) {
    it(`${name} — every gating cell: Auto runs; Plan without a plan is APPROVAL_REQUIRED; Plan with an approved plan runs; Manual stages (nothing reaches GitHub until /accept)`, async () => {
      server.state.pulls.splice(0)
      server.state.issues.splice(0)
      const auto = await ghRepo({ permissionMode: 2 })
      expect((await auto.call("workspace_vcs", args)).ok).toBe(true)
      expect(created()).toBe(1)
      server.state.pulls.splice(0)
      server.state.issues.splice(0)
      const plan = await ghRepo({ permissionMode: 1 })
      const before = server.requests.length
      expect((await plan.call("workspace_vcs", args)).error?.code).toBe("APPROVAL_REQUIRED")
      expect(server.requests.length).toBe(before)
      const proposed = await plan.call("workspace_plan", {
        action: "propose",
        title: "GitHub",
        objective: "Open it",
        steps: ["gh"]
      })
      await plan.run(preprocess(`/accept ${data(proposed)["planId"]}`))
      expect((await plan.call("workspace_vcs", args)).ok).toBe(true)
      expect(created()).toBe(1)
      server.state.pulls.splice(0)
      server.state.issues.splice(0)
      const manual = await ghRepo({ permissionMode: 0 })
      const quiet = server.requests.length
      const staged = await manual.call("workspace_vcs", args)
      expect(data(staged)["status"]).toBe("pending_approval")
      expect(server.requests.length).toBe(quiet)
      await manual.run(preprocess(`/accept ${data(staged)["approval"]["id"]}`))
      expect((await manual.call("workspace_vcs", args)).ok).toBe(true)
      expect(created()).toBe(1)
    })
  }

  it("pr_create in Plan mode without a plan: APPROVAL_REQUIRED, and nothing reached GitHub", async () => {
    const ws = await ghRepo({ permissionMode: 1 })
    const before = server.requests.length
    const state = repoState(ws.dir)
    const result = await ws.call("workspace_vcs", { action: "pr_create", title: "x", head: "feature" })
    expect(result.error?.code).toBe("APPROVAL_REQUIRED")
    expect(server.requests.length).toBe(before)
    expect(repoState(ws.dir)).toEqual(state)
  })

  it("'gh for the GitHub actions must also be on the executable allowlist, or each call fails at run time with EXECUTABLE_DENIED'", async () => {
    const ws = await ghRepo({ executableAllowlist: ["git", "node"] })
    const before = server.requests.length
    for (const args of [
      { action: "gh_auth" },
      { action: "issue_list" },
      { action: "pr_list" },
      { action: "pr_diff", pull_request_number: 1 },
      { action: "issue_create", title: "x" },
      { action: "pr_create", title: "x" }
    ]) {
      const result = await ws.call("workspace_vcs", args)
      expect(result.error?.code).toBe("EXECUTABLE_DENIED")
      expect(result.error?.details).toEqual({ executable: "gh", setting: "executableAllowlist" })
      expect(result.error?.message).toContain('"gh"')
      expect(result.error?.message).toContain("executableAllowlist")
    }
    expect(server.requests.length).toBe(before)
    // git itself is still allowed, so the git actions run.
    expect((await ws.call("workspace_vcs", { action: "status" })).ok).toBe(true)
  })
})
