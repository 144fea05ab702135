/**
 * The Node entry of the `agentic-workspace` bin. It loads little by itself: it checks the package, reads
 * the verb (answering `--version` itself) and, for `call`, starts the sandbox probe (adapters/node/sandboxProbe.ts) so its processes run
 * while the rest of the command loads (adapters/node/cli.ts, a dynamic import); the call awaits the answer
 * when it needs it (capabilities, a command). In the package, `call` and `mcp --root` load the command from
 * its CommonJS bundle with a V8 code cache instead (adapters/node/commandCache.ts). spec/adapters/package.test.ts
 * checks what this entry loads.
 */
import { fileURLToPath } from "node:url"
import { parseLine } from "../cliLine.ts"
import { VERSION } from "../version.ts"
import { codeCacheDir, loadCommand } from "./commandCache.ts"
import type { runNodeCli as RunNodeCli } from "./cli.ts"
import { missingRuntimeFiles } from "./runtimeFiles.ts"
import * as sandboxProbe from "./sandboxProbe.ts"

/** The command's CommonJS bundle beside this entry (its file name; `call` and `mcp --root` run it), defined by scripts/build.mjs; absent in the sources. */
declare const __AW_CALL_COMMAND__: string | undefined
const CALL_COMMAND = typeof __AW_CALL_COMMAND__ === "string" ? __AW_CALL_COMMAND__ : undefined

/** The module name under which the bundle takes this entry's sandbox probe (scripts/build.mjs maps the import to it). */
const PROBE_MODULE = "agentic-workspace:sandbox-probe"

// A package that lost a file it runs later (the bin a sub-agent worker re-runs, the browser supervisor, the
// review page) stops here, naming it, rather than as a run "interrupted" or a browser that "did not start".
const missing = missingRuntimeFiles()
if (missing.length > 0) {
  process.stderr.write(
    `agentic-workspace: this installation is missing ${missing.join(", ")}; reinstall the package (in a checkout: npm ci, or npm run build for dist/).\n`
  )
  process.exit(2)
}

const line = parseLine(process.argv.slice(2), process.cwd())
if (line.verb === undefined && line.errors.length === 0 && line.flags["version"] === true) {
  // `--version` needs nothing else (adapters/cli.ts answers it the same way).
  process.stdout.write(`${VERSION}\n`)
} else {
  // A failed start is no answer: the call probes again when it asks (sandboxSupport).
  if (line.verb === "call" && line.errors.length === 0 && line.flags["help"] === undefined)
    sandboxProbe.startSandboxProbe().catch(() => undefined)
  // `call`, and `mcp` on a fixed --root (a server without one opens the client's first root later, which the
  // cache folder's check against the workspace could not see at start).
  const verb = line.verb === "call" ? "call" : line.verb === "mcp" && line.rootGiven ? "mcp" : undefined
  if (verb !== undefined && CALL_COMMAND !== undefined) {
    const loaded = loadCommand({
      file: fileURLToPath(new URL(`./${CALL_COMMAND}`, import.meta.url)),
      version: VERSION,
      verb,
      cacheDir: codeCacheDir(line.root),
      provided: { [PROBE_MODULE]: sandboxProbe }
    })
    // A server that ends by process.exit still leaves its cache (save() runs once, synchronously).
    if (verb === "mcp") process.once("exit", loaded.save)
    process.exitCode = await (loaded.exports["runNodeCli"] as typeof RunNodeCli)(line)
    // After the answer (a call's, or the server's whole session): the first run stores what V8 compiled.
    loaded.save()
  } else {
    const { runNodeCli } = await import("./cli.ts")
    process.exitCode = await runNodeCli(line)
  }
}
