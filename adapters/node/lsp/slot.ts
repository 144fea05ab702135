/**
 * One language's server slot and its lifecycle: started on first use (a failed start tried once more),
 * requests one at a time under a deadline, stopped when idle for languageServerIdleMinutes, and by the
 * workspace's close (shutdown, exit, then the whole process group).
 */
import { spawn } from "node:child_process"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import type { InitializeResult } from "vscode-languageserver-protocol"
import type { LanguageId, ServerInfo } from "../../../core/services/LanguageServers.ts"
import type { Settings } from "../../../core/settings/settings.ts"
import {
  Failed,
  failure,
  killGroup,
  loadRpc,
  type Published,
  race,
  relativeOf,
  type Resolved,
  type RpcConnection,
  type Running,
  Tail
} from "./common.ts"
import { diagnosticOf, type RawDiagnostic } from "./convert.ts"
import { pythonConfiguration } from "./pyright.ts"
import { confinement, serverEnv } from "./sandbox.ts"
import { resolveTypeScript } from "./typescript.ts"
import { resolvePyright } from "./pyright.ts"
import { defined } from "../../../core/text/defined.ts"

/** Finds a language's server, or the failure that names the install that repairs it. */
const resolveServer = (language: LanguageId, root: string): Resolved | Failed =>
  language === "typescript" ? resolveTypeScript(root) : resolvePyright(root)

/** bubblewrap reports a server killed by signal N as exit code 128+N: how the server ended, in words. */
const endedHow = (code: number | null, signal: NodeJS.Signals | null, sandboxed: boolean) => {
  const bySignal =
    signal ??
    (sandboxed && code !== null && code > 128
      ? Object.entries(os.constants.signals).find(([, number]) => number === code - 128)?.[0]
      : undefined)
  return bySignal === undefined || bySignal === null ? `exited with code ${code}` : `was killed (${bySignal})`
}

/** Answers the server's notifications and requests: diagnostics are kept, anything that would change the client refused. */
const answerServer = (
  connection: RpcConnection,
  root: string,
  published: Map<string, Published>,
  listeners: Set<() => void>
) => {
  connection.onNotification("textDocument/publishDiagnostics", (raw) => {
    const params = raw as { uri: string; diagnostics: ReadonlyArray<RawDiagnostic> }
    const rel = relativeOf(root, params.uri)
    if (rel === undefined) return
    published.set(rel, { at: Date.now(), diagnostics: params.diagnostics.map((d) => diagnosticOf(rel, d)) })
    if (process.env["AW_LSP_DEBUG"] === "1")
      process.stderr.write(`publish ${rel} ${JSON.stringify(params.diagnostics).slice(0, 200)}\n`)
    for (const listener of listeners) listener()
  })
  connection.onNotification("window/logMessage", () => undefined)
  connection.onNotification("$/progress", () => undefined)
  connection.onNotification("telemetry/event", () => undefined)
  connection.onRequest("workspace/configuration", pythonConfiguration)
  connection.onRequest("window/workDoneProgress/create", () => null)
  connection.onRequest("client/registerCapability", () => null)
  connection.onRequest("client/unregisterCapability", () => null)
  connection.onRequest("window/showMessageRequest", () => null)
  connection.onRequest("workspace/applyEdit", () => ({ applied: false, failureReason: "read-only client" }))
  connection.onRequest("workspace/workspaceFolders", () => [
    { uri: pathToFileURL(root).href, name: path.basename(root) }
  ])
}

/** The initialize request's parameters: a read-only client speaking UTF-16 positions. */
const initializeParams = (root: string, resolved: Resolved) => ({
  processId: null,
  clientInfo: { name: "agentic-workspace" },
  rootUri: pathToFileURL(root).href,
  rootPath: root,
  workspaceFolders: [{ uri: pathToFileURL(root).href, name: path.basename(root) }],
  initializationOptions: resolved.initializationOptions,
  capabilities: {
    general: { positionEncodings: ["utf-16"] },
    textDocument: {
      synchronization: { didSave: false, dynamicRegistration: false },
      documentSymbol: { hierarchicalDocumentSymbolSupport: true },
      definition: { linkSupport: true },
      references: {},
      rename: { prepareSupport: true },
      publishDiagnostics: { relatedInformation: false, versionSupport: true },
      diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false }
    },
    workspace: {
      symbol: {},
      configuration: true,
      workspaceFolders: true,
      workspaceEdit: { documentChanges: true, resourceOperations: ["create", "rename", "delete"] }
    },
    window: { workDoneProgress: false }
  }
})

/** One language's server slot: at most one running server, requests one at a time. */
export class Slot {
  private running: Running | undefined
  private starting: Promise<Running> | undefined
  private queue: Promise<unknown> = Promise.resolve()
  private idleTimer: NodeJS.Timeout | undefined
  private stopped = false
  /** Times the server was started, for the specs' restart check (docs/CODE.md). */
  starts = 0
  private lastTail = ""

  constructor(
    private readonly language: LanguageId,
    private readonly root: string,
    private readonly settings: Settings
  ) {}

  /** Runs `work` against a started server, alone, under the request deadline. */
  run<A>(work: (server: Running, deadline: number) => Promise<A>): Promise<A> {
    const next = this.queue.then(
      () => this.runNow(work),
      () => this.runNow(work)
    )
    this.queue = next.catch(() => undefined)
    return next
  }

  private async runNow<A>(work: (server: Running, deadline: number) => Promise<A>): Promise<A> {
    if (this.stopped) throw failure("unavailable", "the workspace is closing; its language servers are stopped")
    const deadline = Date.now() + this.settings.languageServerTimeoutMs
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer)
    try {
      const server = await this.ensure(deadline)
      return await work(server, deadline)
    } finally {
      this.armIdle()
    }
  }

  private armIdle() {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer)
    this.idleTimer = setTimeout(() => void this.stop(), this.settings.languageServerIdleMinutes * 60_000)
    this.idleTimer.unref()
  }

  /** The running server, or a new one: a start that fails is tried once more, then the call fails. */
  private async ensure(deadline: number): Promise<Running> {
    if (this.running !== undefined && !this.running.dead) return this.running
    this.running = undefined
    this.starting ??= this.start(deadline).catch(async (error: unknown) => {
      if (error instanceof Failed && (error.failure.reason === "unavailable" || Date.now() >= deadline)) throw error
      return this.start(deadline)
    })
    try {
      this.running = await this.starting
      return this.running
    } finally {
      this.starting = undefined
    }
  }

  /** Whether a server process is running now (the specs' idle check). */
  get alive(): boolean {
    return this.running !== undefined && !this.running.dead
  }

  private async start(deadline: number): Promise<Running> {
    const resolved = resolveServer(this.language, this.root)
    if (resolved instanceof Failed) throw resolved
    const confined = await confinement(this.settings, this.root, resolved.readable)
    if (confined instanceof Failed) throw confined
    const rpc = await loadRpc()
    const [executable, ...args] = [...confined.prefix, ...resolved.argv]
    this.starts++
    const child = spawn(executable!, args, {
      cwd: this.root,
      env: serverEnv(confined.sandboxed),
      stdio: ["pipe", "pipe", "pipe"],
      detached: true
    })
    const tail = new Tail()
    child.stderr!.setEncoding("utf8")
    child.stderr!.on("data", (chunk: string) => tail.push(chunk))
    const connection = rpc.createMessageConnection(
      new rpc.StreamMessageReader(child.stdout!),
      new rpc.StreamMessageWriter(child.stdin!)
    ) as unknown as RpcConnection
    const published = new Map<string, Published>()
    const listeners = new Set<() => void>()
    const state = { dead: false }
    const exited = new Promise<never>((_, reject) => {
      const onEnd = (how: string) => {
        state.dead = true
        if (running !== undefined) running.dead = true
        this.lastTail = tail.text()
        reject(
          failure(
            "crashed",
            `the ${resolved.info.name} server ${how}${this.lastTail === "" ? " (it wrote nothing to stderr)" : "; its last stderr lines are in stderrTail"}`,
            this.lastTail
          )
        )
        connection.dispose()
      }
      child.on("error", (error) => onEnd(`could not start (${error.message})`))
      child.on("exit", (code, signal) => {
        onEnd(endedHow(code, signal, confined.sandboxed))
      })
    })
    exited.catch(() => undefined)
    child.stdin!.on("error", () => undefined)
    answerServer(connection, this.root, published, listeners)
    connection.listen()
    const running: Running = {
      child,
      connection,
      resolved,
      exited,
      published,
      listeners,
      sandboxed: confined.sandboxed,
      ...defined({ unconfinedReason: confined.reason }),
      capabilities: {},
      dead: state.dead
    }
    const initialized = (await race(
      running,
      connection.sendRequest("initialize", initializeParams(this.root, resolved)),
      deadline,
      "initialize"
    ).catch((error: unknown) => {
      killGroup(child)
      throw error
    })) as InitializeResult
    await connection.sendNotification("initialized", {})
    running.capabilities = { ...(initialized.capabilities ?? {}) }
    return running
  }

  /** Stops the server: shutdown and exit, then its whole process group. */
  async stop(): Promise<void> {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer)
    this.idleTimer = undefined
    const server = this.running
    this.running = undefined
    if (server === undefined || server.dead) return
    server.dead = true
    await race(
      server,
      Promise.resolve().then(() => server.connection.sendRequest("shutdown")),
      Date.now() + 2000,
      "shutdown"
    ).catch(() => undefined)
    await Promise.resolve()
      .then(() => server.connection.sendNotification("exit"))
      .catch(() => undefined)
    await Promise.race([server.exited.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 500))])
    killGroup(server.child)
  }

  async close(): Promise<void> {
    this.stopped = true
    await this.stop()
  }

  info(): Promise<ServerInfo> {
    return this.run(async (server) => ({
      ...server.resolved.info,
      sandboxed: server.sandboxed,
      ...defined({ unconfinedReason: server.unconfinedReason })
    }))
  }
}
