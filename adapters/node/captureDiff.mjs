// The capture differ: `node captureDiff.mjs <lower> <merged> <upper> <outDir>`, run inside the capture's
// mount namespace after the command ended (adapters/node/sandbox.ts). It compares the overlay's upper layer
// and merged view with the real tree (the lower layer) and writes <outDir>/manifest.json (created, modified,
// deleted files, created directories, skipped entries) and a copy of every created or modified file under
// <outDir>/files/. Plain JavaScript so it starts with bare node.
//
// For every path it reports it also records what the real tree holds there now (`base`: the SHA-256 of the
// file, or "missing"), which the transaction's commit is checked against, and which of them changed in the
// real tree while the command ran (`changedDuringRun`: the real file's ctime is not before the ctime of
// <outDir>/started, written by the capture script just before the command started; ctime is set by the
// kernel on every change and no process can set it back).
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"

const [lower, merged, upper, outDir] = process.argv.slice(2)
const manifest = {
  created: [],
  modified: [],
  deleted: [],
  directories: [],
  skipped: [],
  base: {},
  changedDuringRun: []
}
const TOP_SKIPPED = new Set([".git", ".agentic"])

const lstat = (target) => {
  try {
    return fs.lstatSync(target)
  } catch {
    return undefined
  }
}
const names = (dir) => {
  try {
    return fs.readdirSync(dir)
  } catch {
    return []
  }
}
const isWhiteout = (stats) => stats.isCharacterDevice() && stats.rdev === 0

/** Every file below a lower directory (what deleting it removes). */
const lowerFiles = (rel) => {
  const out = []
  for (const name of names(path.join(lower, rel))) {
    const child = rel === "" ? name : `${rel}/${name}`
    const stats = lstat(path.join(lower, child))
    if (stats?.isDirectory()) out.push(...lowerFiles(child))
    else if (stats !== undefined) out.push(child)
  }
  return out
}

const copyOut = (rel) => {
  const target = path.join(outDir, "files", rel)
  fs.mkdirSync(path.dirname(target), { recursive: true })
  fs.copyFileSync(path.join(merged, rel), target)
}

const walk = (rel) => {
  const dir = path.join(upper, rel)
  // Names the real tree has here but the command's view no longer does were deleted (whiteouts, opaque folders).
  if (lstat(path.join(lower, rel))?.isDirectory()) {
    const now = new Set(names(path.join(merged, rel)))
    for (const name of names(path.join(lower, rel))) {
      const child = rel === "" ? name : `${rel}/${name}`
      if (rel === "" && TOP_SKIPPED.has(name)) continue
      if (now.has(name)) continue
      const stats = lstat(path.join(lower, child))
      if (stats?.isDirectory()) manifest.deleted.push(...lowerFiles(child))
      else manifest.deleted.push(child)
    }
  }
  for (const name of names(dir)) {
    const child = rel === "" ? name : `${rel}/${name}`
    if (rel === "" && TOP_SKIPPED.has(name)) continue
    const stats = lstat(path.join(upper, child))
    if (stats === undefined || isWhiteout(stats)) continue
    const before = lstat(path.join(lower, child))
    const shown = lstat(path.join(merged, child))
    if (shown === undefined) continue
    if (shown.isDirectory()) {
      if (before === undefined || !before.isDirectory()) manifest.directories.push(child)
      if (before !== undefined && !before.isDirectory()) manifest.deleted.push(child)
      walk(child)
    } else if (shown.isFile()) {
      if (before?.isFile()) {
        const same =
          before.size === shown.size &&
          Buffer.compare(fs.readFileSync(path.join(lower, child)), fs.readFileSync(path.join(merged, child))) === 0
        if (same) continue
        manifest.modified.push(child)
      } else {
        if (before?.isDirectory()) manifest.deleted.push(...lowerFiles(child))
        manifest.created.push(child)
      }
      copyOut(child)
    } else {
      manifest.skipped.push({ path: child, reason: shown.isSymbolicLink() ? "symbolic link" : "not a regular file" })
    }
  }
}

fs.mkdirSync(outDir, { recursive: true })
walk("")
for (const list of [manifest.created, manifest.modified, manifest.deleted, manifest.directories]) list.sort()
const startedAt = (() => {
  try {
    return fs.lstatSync(path.join(outDir, "started"), { bigint: true }).ctimeNs
  } catch {
    return undefined
  }
})()
for (const rel of [...manifest.created, ...manifest.modified, ...manifest.deleted]) {
  let stats
  try {
    stats = fs.lstatSync(path.join(lower, rel), { bigint: true })
  } catch {
    manifest.base[rel] = "missing"
    continue
  }
  manifest.base[rel] = stats.isFile()
    ? createHash("sha256")
        .update(fs.readFileSync(path.join(lower, rel)))
        .digest("hex")
    : stats.isDirectory()
      ? "directory"
      : "other"
  // Without the start mark, every reported path counts as changed (refuse rather than overwrite).
  if (startedAt === undefined || stats.ctimeNs >= startedAt) manifest.changedDuringRun.push(rel)
}
manifest.changedDuringRun.sort()
fs.writeFileSync(path.join(outDir, "manifest.json.tmp"), `${JSON.stringify(manifest, null, 2)}\n`)
fs.renameSync(path.join(outDir, "manifest.json.tmp"), path.join(outDir, "manifest.json"))
