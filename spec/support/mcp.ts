/**
 * Test support for the MCP adapter: the real server in a child process (stdio or Streamable HTTP),
 * driven by the SDK's real Client; the table of each tool's simplest read action.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ElicitRequestSchema, type ElicitResult, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { STATUS_TOOL } from "../../core/registry.ts"
import type { Probe } from "../../core/tools/Tool.ts"
import { testEntryStart } from "./bin.ts"
import { TOOLS_WITH_TEST_TOOL } from "./gatedTestTool.ts"
import { REPO } from "./workspace.ts"

/** The same test entry on the Deno host. */
export const TEST_ENTRY_DENO = path.join(REPO, "spec/adapters/deno/test_entry.ts")

/**
 * Each tool's simplest read action: its definition's `probe` (so a tool brings its own), plus the
 * diagnostic tool's. `ok` is what the envelope must say; "any" for reads that need state this test
 * does not create.
 */
export const READ_ACTIONS: Record<string, Probe> = {
  ...Object.fromEntries(TOOLS_WITH_TEST_TOOL.map((tool) => [tool.name, tool.probe])),
  [STATUS_TOOL]: { args: {}, ok: false }
}

/** How the test answers an elicitation: a fixed answer, and a log of every prompt. */
export interface ElicitationScript {
  next: ElicitResult
  readonly prompts: Array<{ message: string; requestedSchema: unknown }>
}

/** A connected client and its server's process. */
export interface Connected {
  readonly client: Client
  readonly elicitation: ElicitationScript
  readonly close: () => Promise<void>
}

const makeClient = (
  elicit: boolean,
  roots?: ReadonlyArray<string>
): { client: Client; elicitation: ElicitationScript } => {
  const client = new Client(
    { name: "agentic-workspace-spec", version: "1.0.0" },
    {
      capabilities: {
        ...(elicit ? { elicitation: { form: {} } } : {}),
        ...(roots === undefined ? {} : { roots: { listChanged: false } })
      }
    }
  )
  if (roots !== undefined) {
    client.setRequestHandler(ListRootsRequestSchema, async () => ({
      roots: roots.map((root) => ({ uri: `file://${root}`, name: path.basename(root) }))
    }))
  }
  const elicitation: ElicitationScript = { next: { action: "cancel" }, prompts: [] }
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const params = request.params as { message: string; requestedSchema?: unknown }
      elicitation.prompts.push({ message: params.message, requestedSchema: params.requestedSchema })
      return elicitation.next
    })
  }
  return { client, elicitation }
}

/**
 * Spawns `mcp` over stdio in `root` and connects the SDK client. With `roots`, the client offers those
 * MCP roots and `mcp` gets no --root (it runs in `cwd`, default the repository).
 */
export const connectStdio = async (
  root: string,
  settings: ReadonlyArray<string> = [],
  options: { elicit?: boolean; roots?: ReadonlyArray<string>; cwd?: string } = {}
): Promise<Connected & { readonly stderr: () => string }> => {
  const { client, elicitation } = makeClient(options.elicit ?? true, options.roots)
  const rootArgs = options.roots === undefined ? ["--root", root] : []
  const start = testEntryStart(["mcp", ...rootArgs, ...settings.flatMap((setting) => ["--set", setting])])
  const transport = new StdioClientTransport({
    command: start.command,
    args: start.args,
    cwd: options.cwd ?? REPO,
    stderr: "pipe",
    // The SDK passes only a few variables on by default: the server must see the tests' XDG_STATE_HOME (its key).
    env: {
      ...getDefaultEnvironment(),
      ...(process.env.XDG_STATE_HOME === undefined ? {} : { XDG_STATE_HOME: process.env.XDG_STATE_HOME })
    }
  })
  let err = ""
  transport.stderr?.on("data", (chunk: Buffer) => (err += chunk.toString()))
  await client.connect(transport)
  return { client, elicitation, close: () => client.close(), stderr: () => err }
}

/** A Streamable HTTP server in a child process. */
export interface HttpServerProcess {
  readonly child: ChildProcess
  readonly url: string
  readonly port: number
  readonly token: string
  readonly stderr: () => string
  readonly stop: () => Promise<void>
}

/** Spawns `mcp --http 0` (a free port) and waits for the address and token it prints. */
export const startHttpServer = (
  root: string,
  settings: ReadonlyArray<string> = [],
  options: { command?: string; args?: (mcpArgs: Array<string>) => Array<string> } = {}
): Promise<HttpServerProcess> =>
  new Promise((resolve, reject) => {
    const mcpArgs = ["mcp", "--http", "0", "--root", root, ...settings.flatMap((setting) => ["--set", setting])]
    const start = testEntryStart(mcpArgs)
    const child = spawn(options.command ?? start.command, options.args?.(mcpArgs) ?? start.args, {
      cwd: REPO,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let err = ""
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`the HTTP server did not start:\n${err}`))
    }, 30_000)
    child.stderr!.on("data", (chunk: Buffer) => {
      err += chunk.toString()
      const address = /Streamable HTTP on (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/.exec(err)
      const token = /bearer token: ([0-9a-f]+)/.exec(err)
      if (address !== null && token !== null) {
        clearTimeout(timer)
        resolve({
          child,
          url: address[1]!,
          port: Number(address[2]),
          token: token[1]!,
          stderr: () => err,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null || child.signalCode !== null) return done()
              const kill = setTimeout(() => child.kill("SIGKILL"), 5000)
              child.once("exit", () => {
                clearTimeout(kill)
                done()
              })
              child.kill("SIGTERM")
            })
        })
      }
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`the HTTP server exited (${code}):\n${err}`))
    })
  })

/** Connects the SDK client to a running HTTP server with its bearer token. */
export const connectHttp = async (
  server: HttpServerProcess,
  options: { elicit?: boolean } = {}
): Promise<Connected> => {
  const { client, elicitation } = makeClient(options.elicit ?? true)
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: { Authorization: `Bearer ${server.token}` } }
  })
  await client.connect(transport)
  return {
    client,
    elicitation,
    close: async () => {
      await transport.terminateSession().catch(() => undefined)
      await client.close()
    }
  }
}

/** The deno binary the `deno` npm package installs. */
export const DENO = path.join(REPO, "node_modules/.bin/deno")
/** The one entry, whichever runtime runs it. */
export const ENTRY = path.join(REPO, "bin/agentic-workspace.js")
