/**
 * The Node entry of the `agentic-workspace` bin. It loads little by itself: it checks the package, reads
 * the verb (answering `--version` itself) and, for `call`, starts the sandbox probe (adapters/node/sandboxProbe.ts) so its processes run
 * while the rest of the command loads (adapters/node/cli.ts, a dynamic import); the call awaits the answer
 * when it needs it (capabilities, a command). spec/adapters/package.test.ts checks what this entry loads.
 */
import { parseLine } from "../cliLine.ts"
import { VERSION } from "../version.ts"
import { missingRuntimeFiles } from "./runtimeFiles.ts"
import { startSandboxProbe } from "./sandboxProbe.ts"

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
    startSandboxProbe().catch(() => undefined)
  const { runNodeCli } = await import("./cli.ts")
  process.exitCode = await runNodeCli(line)
}
