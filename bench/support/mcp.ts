/**
 * Bench helper shared by bench:startup and bench:mcp: spawn an MCP stdio server and time what a client
 * waits for (spawn + initialize + tools/list), with the SDK's own Client; alternating rounds and medians.
 * The performance issue builds bench:mcp on these.
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"

/** The repository root. */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")

/** A command to start: argv[0] and the rest. */
export interface Command {
  readonly label: string
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>>
}

/**
 * Our bin running the built bundle (dist/), as an installed package runs it; `repo` names another checkout
 * with its own build (a baseline measured in the same run).
 */
export const ourBin = (
  args: ReadonlyArray<string>,
  label = `agentic-workspace ${args[0] ?? ""}`.trim(),
  repo = REPO
): Command => ({
  label,
  command: process.execPath,
  args: [path.join(repo, "bin/agentic-workspace.js"), ...args],
  env: { AGENTIC_WORKSPACE_DIST: "1" }
})

/** The peer: @modelcontextprotocol/server-filesystem (a pinned devDependency) serving `root`. */
export const filesystemServer = (root: string): Command => ({
  label: "@modelcontextprotocol/server-filesystem",
  command: process.execPath,
  args: [path.join(REPO, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"), root]
})

/** Milliseconds from spawning `command` until it exited (status 0 required). */
export const timeRun = (command: Command): Promise<number> =>
  new Promise((resolve, reject) => {
    const start = performance.now()
    execFile(
      command.command,
      [...command.args],
      { env: { ...process.env, ...command.env }, maxBuffer: 64 * 1024 * 1024 },
      (error, _stdout, stderr) => {
        if (error !== null) reject(new Error(`${command.label} failed: ${stderr || error.message}`))
        else resolve(performance.now() - start)
      }
    )
  })

/** A connected client with the time it took to spawn, initialize and list the tools. */
export interface McpStart {
  readonly client: Client
  readonly startMs: number
  readonly tools: number
  /** The server process (for its resident memory). */
  readonly pid: number | null
  readonly close: () => Promise<void>
}

/** Spawns an MCP stdio server and connects (initialize) and lists its tools; the clock stops at the list. */
export const startMcp = async (command: Command): Promise<McpStart> => {
  const client = new Client({ name: "agentic-workspace-bench", version: "1.0.0" })
  const transport = new StdioClientTransport({
    command: command.command,
    args: [...command.args],
    env: { ...(process.env as Record<string, string>), ...command.env },
    stderr: "ignore"
  })
  const start = performance.now()
  await client.connect(transport)
  const { tools } = await client.listTools()
  const startMs = performance.now() - start
  return { client, startMs, tools: tools.length, pid: transport.pid, close: () => client.close() }
}

/** Milliseconds of spawn + initialize + tools/list of one server. */
export const timeMcpStart = async (command: Command): Promise<number> => {
  const started = await startMcp(command)
  await started.close()
  return started.startMs
}

/** The median. */
export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** Runs each measurement `rounds` times, alternating them round by round; the samples per label. */
export const alternate = async (
  rounds: number,
  measures: ReadonlyArray<{ readonly label: string; readonly run: () => Promise<number> }>
) => {
  const samples = new Map<string, Array<number>>(measures.map((measure) => [measure.label, []]))
  for (let round = 0; round < rounds; round++) {
    // Each round starts with the next measurement, so none always runs first (warm caches, load spikes).
    for (let index = 0; index < measures.length; index++) {
      const measure = measures[(round + index) % measures.length]!
      samples.get(measure.label)!.push(await measure.run())
    }
  }
  return samples
}

/** One printed line: label, median, and the ratio to a baseline. */
export const line = (label: string, ms: number, baseline?: { readonly label: string; readonly ms: number }) =>
  `${label.padEnd(62)} median ${(ms < 100 ? ms.toFixed(1) : ms.toFixed(0)).padStart(6)} ms${baseline === undefined ? "" : `   ${(ms / baseline.ms).toFixed(2)}x ${baseline.label}`}`

/** Resident memory of a process in MiB (VmRSS), or NaN off Linux. */
export const rssMiB = (pid: number | null): number => {
  if (pid === null) return Number.NaN
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))
    return match === null ? Number.NaN : Number(match[1]) / 1024
  } catch {
    return Number.NaN
  }
}

/** Runs `work` while sampling the process's RSS every 5 ms; answers the peak (MiB) and the work's time. */
export const peakDuring = async (pid: number | null, work: () => Promise<unknown>) => {
  let peak = rssMiB(pid)
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMiB(pid))
  }, 5)
  const t0 = performance.now()
  try {
    await work()
  } finally {
    clearInterval(timer)
  }
  return { peak: Math.max(peak, rssMiB(pid)), ms: performance.now() - t0 }
}

/** One MCP tool call as a thunk, failing on an error result. */
export const callTool = (client: McpStart, name: string, args: Record<string, unknown>) => async () => {
  const result = await client.client.callTool({ name, arguments: args })
  if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content).slice(0, 400)}`)
  return result
}
