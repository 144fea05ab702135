/**
 * The `review` verb (Node): opens the workspace, serves the review page on 127.0.0.1 and prints the URL
 * to open (it carries the token once); `--open` also hands it to the desktop's opener. Runs until Ctrl-C.
 */
import { spawn } from "node:child_process"
import type { CliHost, ParsedLine } from "../cli.ts"
import { startReview } from "./server.ts"

/** Parses --port: an integer 0-65535 (0 picks a free port); undefined when absent. */
export const portOf = (flag: string | true | undefined): number | undefined | Error => {
  if (flag === undefined) return undefined
  const port = Number(flag)
  return flag === true || !Number.isInteger(port) || port < 0 || port > 65535
    ? new Error(`--port takes a port number from 0 to 65535 (0 picks a free one), got ${String(flag)}.`)
    : port
}

/** Opens a URL with the desktop's opener (xdg-open, open); a failure only prints. */
const openUrl = (url: string, host: CliHost) => {
  const opener = process.platform === "darwin" ? "open" : "xdg-open"
  try {
    const child = spawn(opener, [url], { stdio: "ignore", detached: true })
    child.on("error", () => host.stderr(`agentic-workspace review: could not run ${opener}; open the URL yourself.\n`))
    child.unref()
  } catch {
    host.stderr(`agentic-workspace review: could not run ${opener}; open the URL yourself.\n`)
  }
}

const shutdown = () =>
  new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve())
    process.once("SIGTERM", () => resolve())
  })

/** `agentic-workspace review [--root DIR] [--port N] [--open]`. */
export const reviewVerb = async (line: ParsedLine, host: CliHost): Promise<number> => {
  const port = portOf(line.flags["port"])
  if (port instanceof Error) {
    host.stderr(`agentic-workspace: ${port.message}\n`)
    return 2
  }
  const session = await host.open(line.root, line.settings)
  try {
    if (session.failure !== undefined || session.runtime === undefined) {
      host.stderr(
        `agentic-workspace: ${session.failure?.reason ?? "the workspace did not open"}. ${session.failure?.repair ?? ""}\n`
      )
      return 2
    }
    let server: Awaited<ReturnType<typeof startReview>>
    try {
      server = await startReview({ runtime: session.runtime, port: port ?? 0 })
    } catch (error) {
      host.stderr(
        `agentic-workspace: cannot listen on 127.0.0.1:${port ?? 0} (${error instanceof Error ? error.message : String(error)}).\n`
      )
      return 1
    }
    host.stdout(
      `agentic-workspace review: open ${server.url}\n` +
        `agentic-workspace review: serving ${session.runtime.info.root} on 127.0.0.1:${server.port} (loopback only); the URL carries the page's token, keep it to yourself; stop with Ctrl-C.\n`
    )
    if (line.flags["open"] === true) openUrl(server.url, host)
    await shutdown()
    await server.close()
    return 0
  } finally {
    await session.close()
  }
}
