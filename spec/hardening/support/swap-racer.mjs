/**
 * The racer of the symlink-swap spec: a separate process that, in a tight loop, swaps a directory
 * (`kind` "dir") or a file (`kind` "file") of the workspace for a symlink to a place outside it and
 * back, until the stop file exists. It writes the ready file once it is looping and always leaves the
 * swapped path as it found it (a real directory or file) when it stops.
 *
 * It starts flipping once the go file exists (the spec creates it when the commit reaches its journal,
 * so the flips land among the commit's file steps rather than its planning).
 *
 * argv: kind target outside go ready stop
 */
import * as fs from "node:fs"

const [kind, target, outside, go, ready, stop] = process.argv.slice(2)
const aside = `${target}.racer-aside`
const link = `${target}.racer-link`

/** Holds the current state a random while (up to 200 µs), so a check and a use often see different states. */
const hold = () => {
  const until = process.hrtime.bigint() + BigInt(Math.floor(Math.random() * 200_000))
  while (process.hrtime.bigint() < until) {}
}

const flipDir = () => {
  fs.symlinkSync(outside, link)
  fs.renameSync(target, aside)
  fs.renameSync(link, target)
  hold()
  fs.unlinkSync(target)
  fs.renameSync(aside, target)
  hold()
}

const flipFile = () => {
  fs.symlinkSync(outside, link)
  fs.renameSync(target, aside)
  fs.renameSync(link, target)
  hold()
  // Renaming the original back replaces the symlink in one step.
  fs.renameSync(aside, target)
  hold()
}

/** Puts the real path back whatever step an error interrupted. */
const restore = () => {
  try {
    fs.unlinkSync(link)
  } catch {}
  if (fs.existsSync(aside) || fs.lstatSync(aside, { throwIfNoEntry: false }) !== undefined) {
    const now = fs.lstatSync(target, { throwIfNoEntry: false })
    if (now?.isSymbolicLink()) fs.unlinkSync(target)
    if (kind === "dir" && now?.isDirectory()) return
    fs.renameSync(aside, target)
  }
}

/**
 * At the stop only: if the store found the path missing while it was set aside (between the racer's two
 * renames) it made a fresh folder there and wrote into it, and every later flip failed on the aside that
 * was still in the way. The fresh folder's entries are the newer ones (the spec's calls run one at a
 * time), so they are moved over the aside's, and the aside goes back in place: the folder ends holding
 * every write the store reported, as it would if no racer had moved it.
 */
const merge = (fresh, into) => {
  for (const entry of fs.readdirSync(fresh, { withFileTypes: true })) {
    const from = `${fresh}/${entry.name}`
    const to = `${into}/${entry.name}`
    const there = fs.lstatSync(to, { throwIfNoEntry: false })
    if (entry.isDirectory() && there?.isDirectory()) merge(from, to)
    else {
      if (there?.isDirectory()) fs.rmSync(to, { recursive: true })
      fs.renameSync(from, to)
    }
  }
  fs.rmdirSync(fresh)
}

const finish = () => {
  restore()
  if (kind !== "dir" || fs.lstatSync(aside, { throwIfNoEntry: false }) === undefined) return
  merge(target, aside)
  fs.renameSync(aside, target)
}

while (!fs.existsSync(go) && !fs.existsSync(stop)) {}
fs.writeFileSync(ready, "racing")
let flips = 0
while (!fs.existsSync(stop)) {
  try {
    if (kind === "dir") flipDir()
    else flipFile()
    flips += 1
  } catch {
    restore()
  }
}
finish()
process.stdout.write(String(flips))
