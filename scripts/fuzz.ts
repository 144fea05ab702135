/**
 * `npm run fuzz [-- --calls N --seed S]`: the input fuzzer (core/verify/fuzz.ts) on the memory host, 100,000
 * calls by default (CI runs 5,000). Prints the count and exits 1 on any failure.
 */
import { hostLayer, startHost } from "../core/runtime.ts"
import { makeMemoryHostFs } from "../core/services/MemoryHostFs.ts"
import { defaultSettings } from "../core/settings/settings.ts"
import { fuzzTools } from "../core/verify/fuzz.ts"

const flag = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`)
  return at < 0 ? fallback : Number(process.argv[at + 1])
}
const calls = flag("calls", 100_000)
const seed = flag("seed", 20261201)
const runtime = await startHost(
  hostLayer({ root: "/workspace", runtime: "memory", platform: "memory", fs: makeMemoryHostFs(["/workspace"]).host }),
  defaultSettings
)
try {
  const report = await fuzzTools(runtime, { calls, seed, onProgress: (line) => process.stderr.write(`${line}\n`) })
  process.stdout.write(
    `fuzz: ${report.calls} calls (${report.malformed} malformed, ${report.refused} refused) on the memory host, seed ${seed}, in ${(report.durationMs / 1000).toFixed(1)} s: ${report.ok ? "every reply an envelope, no INTERNAL_ERROR, no refusal wrote" : `${report.failures.length} failure(s)`}\n`
  )
  process.stdout.write(`by tool: ${JSON.stringify(report.byTool)}\n`)
  for (const failure of report.failures)
    process.stdout.write(`  ${failure.tool} ${failure.args}\n    ${failure.problem}\n`)
  process.exitCode = report.ok ? 0 : 1
} finally {
  await runtime.dispose()
}
