/**
 * The host-free parts of listing and searching a tree: .gitignore stacks (the `ignore` package, one
 * matcher per directory that has a .gitignore), glob filters (minimatch), binary detection and the
 * line-oriented matcher. The Node worker (adapters/node/searchWorker.js) mirrors `grepText` exactly;
 * the conformance test compares the two.
 */
import ignore from "ignore"
import { Minimatch } from "minimatch"

/** A path is binary when its first 8 KiB hold a NUL byte: the one definition, in core/text/bytes.ts. */
export { BINARY_SNIFF_BYTES, isBinary } from "../text/bytes.ts"

/** Directories never descended into below the base of a walk: .git/, and .agentic/ unless the walk starts inside one. */
export const isPrunedDir = (rel: string, base: string): boolean => {
  const name = rel.slice(rel.lastIndexOf("/") + 1)
  if (name === ".git") return true
  // .agentic/ (this workspace's or a nested one's) holds toolkit state and earlier results: searched only when named.
  return name === ".agentic" && !base.split("/").includes(".agentic")
}

/** One .gitignore's rules, anchored at the directory holding it. */
interface IgnoreFrame {
  readonly dir: string
  readonly matcher: ReturnType<typeof ignore>
}

/** `ignore` refuses names it cannot tell from relative-path syntax (e.g. "..."); such a name is simply not ignored. */
const testPath = (matcher: ReturnType<typeof ignore>, local: string): { ignored: boolean; unignored: boolean } => {
  try {
    return matcher.test(local)
  } catch {
    return { ignored: false, unignored: false }
  }
}

/** The .gitignore rules in force along one directory path; deeper files override shallower ones. */
export class IgnoreStack {
  private constructor(private readonly frames: ReadonlyArray<IgnoreFrame>) {}

  static readonly empty = new IgnoreStack([])

  /** A stack with the rules of `dir`'s .gitignore (its text) added on top. */
  with(dir: string, gitignoreText: string | undefined): IgnoreStack {
    if (gitignoreText === undefined || gitignoreText.trim() === "") return this
    // .agentic/.gitignore ("*") keeps the toolkit's state out of git; it is not a rule for workspace_inspect,
    // which reads .agentic/ when it is named (the root's rules still decide whether .agentic/ is walked).
    if (dir === ".agentic") return this
    return new IgnoreStack([...this.frames, { dir, matcher: ignore().add(gitignoreText) }])
  }

  /** True when `rel` (workspace-relative) is ignored by the rules in force. */
  ignores(rel: string, isDirectory: boolean): boolean {
    for (let index = this.frames.length - 1; index >= 0; index--) {
      const frame = this.frames[index]!
      const local = frame.dir === "" ? rel : rel.startsWith(`${frame.dir}/`) ? rel.slice(frame.dir.length + 1) : undefined
      if (local === undefined || local === "") continue
      const result = testPath(frame.matcher, isDirectory ? `${local}/` : local)
      if (result.unignored) return false
      if (result.ignored) return true
    }
    return false
  }
}

/** A compiled set of globs; a glob without "/" matches a path's last segment at any depth. */
export class GlobSet {
  private readonly matchers: ReadonlyArray<Minimatch>
  constructor(readonly patterns: ReadonlyArray<string>) {
    this.matchers = patterns.map((pattern) => new Minimatch(pattern, { dot: true, matchBase: !pattern.includes("/") }))
  }
  get isEmpty(): boolean {
    return this.matchers.length === 0
  }
  /** True when a glob matches `rel` itself. */
  matches(rel: string): boolean {
    return this.matchers.some((matcher) => matcher.match(rel))
  }
  /** True when a glob matches `rel` or a directory above it ("dist" excludes everything under dist/). */
  covers(rel: string): boolean {
    if (this.matches(rel)) return true
    let at = rel.lastIndexOf("/")
    while (at > 0) {
      if (this.matches(rel.slice(0, at))) return true
      at = rel.lastIndexOf("/", at - 1)
    }
    return false
  }
}

/** Codepoint order of workspace-relative paths: the one order every listing uses. */
export const byPath = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

export { clipLine, grepText, type LineMatch } from "./grepLines.ts"

/** Escapes a literal for use in a RegExp. */
export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&")

/**
 * The longest run of literal characters every match of `source` must contain (at least 3 long), or
 * undefined. Conservative: any alternation gives up; groups, classes, escapes other than escaped
 * punctuation and anchors end a run; a character made optional by ?, * or {…} is dropped, one
 * repeated by + ends the run after it. Lets a host skip files without the literal before decoding them.
 */
export const requiredLiteral = (source: string): string | undefined => {
  let best = ""
  let run = ""
  const end = () => {
    if (run.length > best.length) best = run
    run = ""
  }
  let depth = 0
  let inClass = false
  for (let index = 0; index < source.length; index++) {
    const char = source[index]!
    if (inClass) {
      if (char === "\\") index++
      else if (char === "]") inClass = false
      continue
    }
    if (char === "\\") {
      const next = source[index + 1]
      if (next === undefined) return undefined
      index++
      if (depth === 0 && /[^A-Za-z0-9]/.test(next)) {
        const quantifier = source[index + 1]
        if (quantifier === "?" || quantifier === "*" || quantifier === "{") end()
        else {
          run += next
          if (quantifier === "+") end()
        }
      } else end()
      continue
    }
    if (char === "|") return undefined
    if (char === "[") {
      inClass = true
      end()
      continue
    }
    if (char === "(") {
      depth++
      end()
      continue
    }
    if (char === ")") {
      depth--
      end()
      continue
    }
    if (depth > 0) continue
    if ("^$.?*+{}".includes(char)) {
      end()
      continue
    }
    const quantifier = source[index + 1]
    if (quantifier === "?" || quantifier === "*" || quantifier === "{") end()
    else {
      run += char
      if (quantifier === "+") end()
    }
  }
  end()
  return best.length >= 3 ? best : undefined
}
