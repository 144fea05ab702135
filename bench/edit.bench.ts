/**
 * workspace_edit figures: preview and commit of a 1,000-file replace transaction and of one replace in a
 * 5,000-line file, each beside a plain write of the same bytes and the atomic floor (temp + write + fsync
 * + rename per file, then the directory fsyncs) measured in the same run, each round alternating commit
 * and baselines. Prints medians (BENCH_ROUNDS, default 5); never fails on a time. Run: npm run bench:edit
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { performance } from "node:perf_hooks"
import { makeTempDir, openWorkspace } from "../spec/support/workspace.ts"

const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 5)
const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const ms = (value: number) => `${value.toFixed(1).padStart(9)} ms`

const time = async <A>(run: () => Promise<A>): Promise<[number, A]> => {
  const start = performance.now()
  const result = await run()
  return [performance.now() - start, result]
}

const scenario = async (
  label: string,
  files: Record<string, string>,
  operationsFor: (from: string, to: string) => Array<Record<string, unknown>>
) => {
  const dir = await makeTempDir("aw-bench-edit-")
  for (const [rel, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, rel)), { recursive: true })
    await fs.writeFile(path.join(dir, rel), content)
  }
  const ws = await openWorkspace({ permissionMode: 2 }, dir)
  const previews: Array<number> = []
  const commits: Array<number> = []
  const plain: Array<number> = []
  const plainSync: Array<number> = []
  const floor: Array<number> = []
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const [from, to] = round % 2 === 0 ? ["value: old", "value: new"] : ["value: new", "value: old"]
      const [previewMs, preview] = await time(() =>
        ws.call("workspace_edit", { action: "preview", operations: operationsFor(from, to) })
      )
      if (!preview.ok) throw new Error(`preview failed: ${preview.summary}`)
      const id = (preview.data as { transactionId: string }).transactionId
      const [commitMs, commit] = await time(() => ws.call("workspace_edit", { action: "commit", transaction_id: id }))
      if (!commit.ok) throw new Error(`commit failed: ${commit.summary}`)
      previews.push(previewMs)
      commits.push(commitMs)
      // The same bytes the commit wrote, written back plainly (and plainly with fsync), in the same run.
      const after = await Promise.all(
        Object.keys(files).map(async (rel) => [rel, await fs.readFile(path.join(dir, rel))] as const)
      )
      const [plainMs] = await time(async () => {
        for (const [rel, bytes] of after) await fs.writeFile(path.join(dir, rel), bytes)
      })
      const [syncMs] = await time(async () => {
        for (const [rel, bytes] of after) {
          const handle = await fs.open(path.join(dir, rel), "w")
          await handle.writeFile(bytes)
          await handle.sync()
          await handle.close()
        }
      })
      // The atomic floor (issue 19): what any crash-safe replace of these files costs at least, one
      // file at a time: temp + write + fsync + rename per file, then one fsync per directory.
      const [floorMs] = await time(async () => {
        const folders = new Set<string>()
        for (const [rel, bytes] of after) {
          const target = path.join(dir, rel)
          const temp = `${target}.floor-${round}.tmp`
          const handle = await fs.open(temp, "wx")
          await handle.writeFile(bytes)
          await handle.sync()
          await handle.close()
          await fs.rename(temp, target)
          folders.add(path.dirname(target))
        }
        for (const folder of folders) {
          const handle = await fs.open(folder, "r")
          await handle.sync()
          await handle.close()
        }
      })
      plain.push(plainMs)
      plainSync.push(syncMs)
      floor.push(floorMs)
    }
  } finally {
    await ws.dispose()
  }
  const bytes = Object.values(files).reduce((sum, content) => sum + Buffer.byteLength(content), 0)
  console.log(
    `\n${label} (${Object.keys(files).length} file(s), ${(bytes / 1024).toFixed(0)} KiB; median of ${ROUNDS})`
  )
  console.log(`  preview (plan + diff + artifacts) ${ms(median(previews))}`)
  console.log(`  commit (re-check + journal + atomic writes) ${ms(median(commits))}`)
  console.log(`  plain write of the same bytes      ${ms(median(plain))}`)
  console.log(`  plain write + fsync per file       ${ms(median(plainSync))}`)
  console.log(`  atomic floor (temp+write+fsync+rename per file, directory fsyncs) ${ms(median(floor))}`)
  console.log(`  commit / atomic floor              ${(median(commits) / median(floor)).toFixed(2)}x (target 1.5x)`)
}

const thousand = Object.fromEntries(
  Array.from({ length: 1000 }, (_, i) => [
    `src/m${String(Math.floor(i / 100))}/file${i}.ts`,
    `// file ${i}\n${Array.from({ length: 20 }, (_, l) => `export const v${l} = ${l * i}\n`).join("")}// value: old\n`
  ])
)
await scenario("1,000-file replace transaction", thousand, (from, to) =>
  Object.keys(thousand).map((rel) => ({ type: "replace", path: rel, search: from, replacement: to }))
)

const big = Array.from({ length: 5000 }, (_, l) =>
  l === 2500 ? "// value: old\n" : `const line${l} = ${l} // padding text for a realistic width\n`
).join("")
await scenario("one replace in a 5,000-line file", { "big.ts": big }, (from, to) => [
  { type: "replace", path: "big.ts", search: from, replacement: to }
])
