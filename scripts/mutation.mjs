// `npm run mutation:file -- <file>...`: a mutation run per file (stryker.file.config.mjs) against the pure
// tests of vitest.mutation-fast.config.ts, one file after the other, then the score per file of every
// per-file report in reports/mutation/. `npm run mutation:file -- --summary` prints the table only.
// Environment: MUTATION_CONCURRENCY (default 1), PROPERTY_RUNS_SCALE (default 0.1), MUTATION_TESTS.
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"

const args = process.argv.slice(2)
const files = args.filter((arg) => !arg.startsWith("--"))
let failed = false
if (!args.includes("--summary")) {
  for (const file of files) {
    process.stderr.write(`mutation: ${file}\n`)
    const run = spawnSync("npx", ["stryker", "run", "stryker.file.config.mjs"], {
      stdio: "inherit",
      env: { ...process.env, MUTATE: file, PROPERTY_RUNS_SCALE: process.env.PROPERTY_RUNS_SCALE ?? "0.1" }
    })
    if (run.status !== 0) failed = true
  }
}

const KILLED = new Set(["Killed", "Timeout"])
const dir = "reports/mutation"
const rows = []
for (const name of existsSync(dir) ? readdirSync(dir).sort() : []) {
  if (!name.endsWith("_ts.json")) continue
  const report = JSON.parse(readFileSync(`${dir}/${name}`, "utf8"))
  for (const [path, file] of Object.entries(report.files)) {
    const count = (pred) => file.mutants.filter(pred).length
    const killed = count((m) => KILLED.has(m.status))
    const survived = count((m) => m.status === "Survived")
    const noCoverage = count((m) => m.status === "NoCoverage")
    const other = count((m) => !KILLED.has(m.status) && m.status !== "Survived" && m.status !== "NoCoverage")
    const covered = killed + survived
    rows.push({
      path,
      total: file.mutants.length,
      killed,
      survived,
      noCoverage,
      other,
      score: covered === 0 ? NaN : (100 * killed) / covered
    })
  }
}
const pad = (text, width) => String(text).padStart(width)
process.stdout.write(
  `${"file".padEnd(32)} ${pad("mutants", 7)} ${pad("killed", 6)} ${pad("survived", 8)} ${pad("no cov", 6)} ${pad("ignored/err", 11)} ${pad("% of covered", 12)}\n`
)
for (const row of rows) {
  process.stdout.write(
    `${row.path.padEnd(32)} ${pad(row.total, 7)} ${pad(row.killed, 6)} ${pad(row.survived, 8)} ${pad(row.noCoverage, 6)} ${pad(row.other, 11)} ${pad(Number.isNaN(row.score) ? "-" : row.score.toFixed(2), 12)}\n`
  )
}
process.exitCode = failed ? 1 : 0
