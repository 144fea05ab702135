/**
 * Third-party MCP tooling against our real server: the MCP Inspector CLI (@modelcontextprotocol/inspector
 * 0.15.0, the last release whose engines allow Node 20) lists and calls tools over stdio and over
 * Streamable HTTP; the generic scenarios of @modelcontextprotocol/conformance (initialize, ping,
 * tools-list, logging, DNS rebinding) pass when run under Deno against the HTTP server on the Deno host.
 * Neither client can send a bearer token (Inspector 0.15 has no --header; the conformance scenarios
 * assume an unauthenticated localhost server), so they reach the server through a loopback proxy that
 * adds it and forwards Host and Origin untouched; the server still requires the token.
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { type AuthProxy, startAuthProxy } from "../support/authProxy.ts"
import { DENO, ENTRY, type HttpServerProcess, startHttpServer } from "../support/mcp.ts"
import { makeTempDir, REPO } from "../support/workspace.ts"

const INSPECTOR = path.join(REPO, "node_modules/@modelcontextprotocol/inspector/cli/build/cli.js")
const CONFORMANCE = path.join(REPO, "node_modules/@modelcontextprotocol/conformance/dist/index.js")

const run = (command: string, args: ReadonlyArray<string>, timeout = 60_000) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      command,
      args,
      { cwd: REPO, timeout, env: { ...process.env, NO_COLOR: "1" }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : Number((error as { code?: number }).code ?? 1), stdout, stderr })
    )
  })

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined)
})

const workspace = async () => {
  const dir = await makeTempDir("aw-tooling-")
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }))
  return dir
}

const serve = async (
  root: string,
  options: Parameters<typeof startHttpServer>[2] = {}
): Promise<{ server: HttpServerProcess; proxy: AuthProxy }> => {
  const server = await startHttpServer(root, [], options)
  cleanups.push(() => server.stop())
  const proxy = await startAuthProxy(server.port, server.token)
  cleanups.push(() => proxy.close())
  return { server, proxy }
}

describe("MCP Inspector CLI", () => {
  // The stdio target runs the one entry under Deno (a fifth of the start-up CPU of tsx on Node);
  // the HTTP case below serves from the Node host.
  it("lists and calls tools over stdio (`mcp-inspector --cli deno run -A bin/agentic-workspace.js mcp`)", async () => {
    const root = await workspace()
    const target = [DENO, "run", "-A", ENTRY, "mcp", "--root", root]
    const listed = await run(process.execPath, [INSPECTOR, "--cli", ...target, "--method", "tools/list"])
    expect(listed.code, listed.stderr).toBe(0)
    expect(JSON.parse(listed.stdout).tools.map((tool: { name: string }) => tool.name)).toContain("workspace_notes")
    const called = await run(process.execPath, [
      INSPECTOR,
      "--cli",
      ...target,
      "--method",
      "tools/call",
      "--tool-name",
      "workspace_notes",
      "--tool-arg",
      "action=list"
    ])
    expect(called.code, called.stderr).toBe(0)
    expect(JSON.parse(called.stdout)).toMatchObject({
      isError: false,
      structuredContent: { ok: true, operation: "notes.list" }
    })
  })

  it("lists and calls tools over Streamable HTTP (`mcp-inspector --cli http://…/mcp --transport http`)", async () => {
    const { proxy } = await serve(await workspace())
    const listed = await run(process.execPath, [
      INSPECTOR,
      "--cli",
      proxy.url,
      "--transport",
      "http",
      "--method",
      "tools/list"
    ])
    expect(listed.code, listed.stderr).toBe(0)
    expect(JSON.parse(listed.stdout).tools.map((tool: { name: string }) => tool.name)).toContain("workspace_notes")
    const called = await run(process.execPath, [
      INSPECTOR,
      "--cli",
      proxy.url,
      "--transport",
      "http",
      "--method",
      "tools/call",
      "--tool-name",
      "workspace_notes",
      "--tool-arg",
      "action=nope"
    ])
    expect(called.code, called.stderr).toBe(0)
    expect(JSON.parse(called.stdout)).toMatchObject({
      isError: true,
      structuredContent: { ok: false, error: { code: "INVALID_INPUT" } }
    })
  })
})

describe("@modelcontextprotocol/conformance under Deno, against the HTTP server on the Deno host", () => {
  // The runner needs fs.globSync (Node 22); Deno provides it, Node 20 does not.
  const SCENARIOS = [
    "server-initialize",
    "ping",
    "tools-list",
    "logging-set-level",
    "dns-rebinding-protection"
  ] as const
  it(`passes the generic scenarios: ${SCENARIOS.join(", ")}`, async () => {
    const { proxy } = await serve(await workspace(), {
      command: DENO,
      args: (mcpArgs) => ["run", "-A", ENTRY, ...mcpArgs]
    })
    for (const scenario of SCENARIOS) {
      const result = await run(DENO, ["run", "-A", CONFORMANCE, "server", "--url", proxy.url, "--scenario", scenario])
      const summary = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(result.stdout)
      expect(summary, `${scenario}:\n${result.stdout}\n${result.stderr}`).not.toBeNull()
      expect(summary![3], `${scenario}:\n${result.stdout}`).toBe("0")
      expect(summary![1], scenario).toBe(summary![2])
      expect(result.code, `${scenario}:\n${result.stdout}`).toBe(0)
    }
  })
})
