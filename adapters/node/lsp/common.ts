/**
 * What the Node host's language-server client shares (adapters/node/NodeLanguageServers.ts): the failure a
 * rejected promise carries, a running server's record, its stderr tail, the request race and the kill.
 */
import type { ChildProcess } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import {
  type LanguageServerFailure,
  languageServerFailure,
  type LspDiagnostic,
  type ServerInfo
} from "../../../core/services/LanguageServers.ts"

/** How many of a server's last stderr lines a failure carries. */
const STDERR_LINES = 40

/** A failure as a rejected promise's reason. */
export class Failed extends Error {
  constructor(readonly failure: LanguageServerFailure) {
    super(failure.message)
  }
}
export const failure = (reason: LanguageServerFailure["reason"], message: string, stderrTail?: string) =>
  new Failed(languageServerFailure(reason, message, stderrTail))

/** What a language's server is made of on this machine: how to start it and what it is. */
export interface Resolved {
  readonly argv: ReadonlyArray<string>
  readonly info: ServerInfo
  /** Folders the server must be able to read inside the sandbox (its packages), beside the root. */
  readonly readable: ReadonlyArray<string>
  readonly initializationOptions: Record<string, unknown>
  readonly languageIdOf: (file: string) => string
}

export const inside = (parent: string, child: string) =>
  child === parent || child.startsWith(parent.endsWith("/") ? parent : `${parent}/`)

export interface RpcConnection {
  sendRequest(method: string, params?: unknown, token?: unknown): Promise<unknown>
  sendNotification(method: string, params?: unknown): Promise<void>
  onRequest(method: string, handler: (params: unknown) => unknown): void
  onNotification(method: string, handler: (params: unknown) => void): void
  listen(): void
  dispose(): void
}

export type Rpc = typeof import("vscode-jsonrpc/node")
let rpcModule: Promise<Rpc> | undefined
/** vscode-jsonrpc, loaded on the first start only (the command's start-up never parses it). */
export const loadRpc = () => {
  rpcModule ??= import("vscode-jsonrpc/node")
  return rpcModule
}

export interface Published {
  readonly at: number
  readonly diagnostics: ReadonlyArray<LspDiagnostic>
}

/** One running server. */
export interface Running {
  readonly child: ChildProcess
  readonly connection: RpcConnection
  readonly resolved: Resolved
  capabilities: Record<string, unknown>
  readonly exited: Promise<never>
  readonly published: Map<string, Published>
  readonly listeners: Set<() => void>
  readonly sandboxed: boolean
  readonly unconfinedReason?: string
  dead: boolean
}

/** The last lines a process wrote to stderr, bounded. */
export class Tail {
  private lines: Array<string> = []
  private partial = ""
  push(chunk: string) {
    const parts = (this.partial + chunk).split("\n")
    this.partial = parts.pop() ?? ""
    for (const line of parts) this.lines.push(line.slice(0, 500))
    if (this.lines.length > STDERR_LINES) this.lines = this.lines.slice(-STDERR_LINES)
  }
  text() {
    return [...this.lines, this.partial].filter((line) => line !== "").join("\n")
  }
}

/** The root-relative POSIX path of a file:// URI, or undefined when it is outside the root. */
export const relativeOf = (root: string, uri: string): string | undefined => {
  if (!uri.startsWith("file:")) return undefined
  const absolute = fileURLToPath(uri)
  if (!inside(root, absolute)) return undefined
  return path.relative(root, absolute).split(path.sep).join("/")
}

export const killGroup = (child: ChildProcess) => {
  if (child.pid === undefined) return
  try {
    process.kill(-child.pid, "SIGKILL")
  } catch {
    try {
      child.kill("SIGKILL")
    } catch {
      // already gone
    }
  }
}

/** A request raced against the server's end and the deadline. */
export const race = <A>(server: Pick<Running, "exited">, request: Promise<A>, deadline: number, what: string) => {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          failure(
            "timeout",
            `the language server did not answer ${what} within the deadline (setting languageServerTimeoutMs)`
          )
        ),
      Math.max(0, deadline - Date.now())
    )
  })
  return Promise.race([request, server.exited, timeout]).finally(() => clearTimeout(timer))
}

/** The adapter's view of a request's error: a server's answered error is "refused". */
export const refusedOf = (error: unknown): unknown =>
  error instanceof Failed ? error : failure("refused", error instanceof Error ? error.message : String(error))
