/**
 * The large bench tree of issue 19, generated (never committed): a git repository of 57,000 tracked
 * files in 2,100 folders (nested .gitignore files, a few ignored logs, a few untracked files) plus an
 * ignored node_modules of 32,000 files. Deterministic content: source-like lines, a rare literal in a
 * handful of files, a common one in about a fifth, async function declarations for the regex query.
 * Built once per scale under the bench directory and reused (a marker file records a finished build).
 *
 *   const root = ensureBenchTree(path.join(os.tmpdir(), "aw-bench"), 1)   // scale 0.1 for a quick run
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

/** The shape at scale 1 (the numbers). */
export const TREE_SHAPE = { trackedFiles: 57_000, folders: 2_100, ignoredFiles: 32_000 } as const

/** The queries the tree is seeded for. */
export const TREE_QUERIES = {
  rare: "XMLHttpRequest",
  common: "deprecated",
  regex: "function\\s+\\w+Async"
} as const

/** A small deterministic generator (mulberry32), so every build of a scale is the same tree. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const WORDS = [
  "value",
  "index",
  "result",
  "options",
  "buffer",
  "state",
  "config",
  "handler",
  "request",
  "record",
  "entry",
  "cache"
]

const fileText = (next: () => number, serial: number): string => {
  const lines: Array<string> = [`// module ${serial}`, `import { ${WORDS[serial % WORDS.length]} } from "./shared"`, ""]
  const count = 20 + Math.floor(next() * 80)
  for (let line = 0; line < count; line++) {
    const word = WORDS[Math.floor(next() * WORDS.length)]!
    const roll = next()
    if (roll < 0.03) lines.push(`export async function load${word}${line}Async(input: string) {`)
    else if (roll < 0.06) lines.push(`  /** @deprecated use ${word}${line} instead */`)
    else if (roll < 0.5)
      lines.push(`  const ${word}${line} = compute(${word}, ${line}) // ${word} ${Math.floor(next() * 1e6)}`)
    else lines.push(`  if (${word}.length > ${line}) return ${word}.slice(${line})`)
  }
  if (serial % 9_973 === 0) lines.push("const legacy = new XMLHttpRequest()")
  lines.push("")
  return lines.join("\n")
}

const write = (abs: string, text: string) => fs.writeFileSync(abs, text)

/**
 * Builds (or reuses) the tree at `dir/tree-<scale>` and returns its root. `scale` multiplies every count
 * (0.1 builds 5,700 tracked files in 210 folders and 3,200 ignored ones).
 */
export const ensureBenchTree = (dir: string, scale: number): string => {
  const root = path.join(dir, `tree-${scale}`)
  const marker = path.join(root, ".git", "aw-bench-complete")
  if (fs.existsSync(marker)) return root
  fs.rmSync(root, { recursive: true, force: true })
  fs.mkdirSync(root, { recursive: true })
  const next = random(19)
  const folders = Math.max(3, Math.round(TREE_SHAPE.folders * scale))
  const tracked = Math.max(10, Math.round(TREE_SHAPE.trackedFiles * scale))
  const ignored = Math.max(10, Math.round(TREE_SHAPE.ignoredFiles * scale))
  console.log(
    `Building the bench tree at ${root} (${tracked} tracked files in ${folders} folders, ${ignored} ignored; first run only)...`
  )
  // Folders: a tree about four levels deep (packages/<p>/src/<area>/<leaf>).
  const dirs: Array<string> = []
  for (let index = 0; index < folders; index++) {
    const pkg = `packages/p${index % 40}`
    dirs.push(index < 40 ? pkg : `${pkg}/src/a${Math.floor(index / 40) % 12}/m${index}`)
  }
  for (const rel of dirs) fs.mkdirSync(path.join(root, rel), { recursive: true })
  write(path.join(root, ".gitignore"), "node_modules/\n*.log\n/dist/\n.cache/\n")
  for (let index = 0; index < 40; index += 4)
    write(path.join(root, `packages/p${index}/.gitignore`), "generated/\n*.tmp\n!keep.tmp\n")
  for (let serial = 0; serial < tracked; serial++) {
    const rel = dirs[serial % dirs.length]!
    write(path.join(root, rel, `f${serial}.ts`), fileText(next, serial))
  }
  // Ignored extras inside tracked folders (what the ignore rules have to hide).
  for (let index = 0; index < 200 * scale; index++)
    write(path.join(root, dirs[index % dirs.length]!, `debug${index}.log`), "XMLHttpRequest deprecated\n")
  execFileSync("git", ["init", "-q"], { cwd: root })
  execFileSync("git", ["add", "-A"], { cwd: root, maxBuffer: 1 << 30 })
  execFileSync(
    "git",
    [
      "-c",
      "user.name=bench",
      "-c",
      "user.email=bench@example.com",
      "-c",
      "commit.gpgsign=false",
      "commit",
      "-q",
      "-m",
      "bench tree"
    ],
    {
      cwd: root,
      maxBuffer: 1 << 30
    }
  )
  // A few untracked files (listed and searched, not in the index).
  for (let index = 0; index < 20; index++)
    write(path.join(root, dirs[(index * 7) % dirs.length]!, `untracked${index}.ts`), fileText(next, 1_000_000 + index))
  // The ignored node_modules: packages of nested folders.
  const perPackage = 200
  for (let serial = 0; serial < ignored; serial++) {
    const pkg = Math.floor(serial / perPackage)
    const rel = `node_modules/pkg${pkg}/${serial % 3 === 0 ? "lib" : "dist"}/${serial % 5}`
    fs.mkdirSync(path.join(root, rel), { recursive: true })
    write(path.join(root, rel, `m${serial}.js`), fileText(next, 2_000_000 + serial).replaceAll(": string", ""))
  }
  // Refresh the index's stat data as any git status would (a fresh commit leaves every entry "racily clean").
  execFileSync("git", ["status", "--short"], { cwd: root, maxBuffer: 1 << 30 })
  fs.writeFileSync(marker, `${new Date().toISOString()}\n`)
  return root
}
