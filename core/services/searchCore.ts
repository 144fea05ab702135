/**
 * The host-free parts of listing and searching a tree: glob filters (minimatch), binary detection and the
 * line-oriented matcher. The Node worker (adapters/node/searchWorker.js) mirrors `grepText` exactly;
 * the conformance test compares the two.
 */
import { GLOBSTAR, Minimatch } from "minimatch"

/** A path is binary when its first 8 KiB hold a NUL byte: the one definition, in core/text/bytes.ts. */
export { BINARY_SNIFF_BYTES, isBinary } from "../text/bytes.ts"

/** Directories never descended into below the base of a walk: .git/, and .agentic/ unless the walk starts inside one. */
export const isPrunedDir = (rel: string, base: string): boolean => {
  const name = rel.slice(rel.lastIndexOf("/") + 1)
  if (name === ".git") return true
  // .agentic/ (this workspace's or a nested one's) holds toolkit state and earlier results: searched only when named.
  return name === ".agentic" && !base.split("/").includes(".agentic")
}

export { IgnoreStack } from "./gitignore.ts"

/**
 * One glob as a test of a workspace-relative path (no empty, "." or ".." segment, no doubled or trailing
 * "/"): minimatch's own RegExp of the pattern (makeRe), tested against the path, or its last segment for a
 * glob without "/" (matchBase); minimatch's `match` where it makes no RegExp or the glob is a negation,
 * a comment or empty. A RegExp test is several times cheaper than `match` (a split and a segment walk per
 * path), which a find over 60,000 paths pays for each; properties/glob-regexp.test.ts checks the two agree.
 */
const globTest = (pattern: string): ((rel: string) => boolean) => {
  // "**/rest" with a plain rest of k segments (the commonest find): "**" matches any leading segments, so
  // the path matches when its last k segments match rest (the RegExp of "**" itself is slow).
  const rest = pattern.startsWith("**/") ? pattern.slice(3) : undefined
  if (
    rest !== undefined &&
    !/[[({!#\\]|\*\*/.test(rest) &&
    rest.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..")
  ) {
    const tail = globTest(rest)
    const k = rest.split("/").length
    return (rel) => {
      let at = rel.length
      for (let left = k; left > 0; left--) {
        if (at < 0) return false
        at = rel.lastIndexOf("/", at - 1)
      }
      return tail(at < 0 ? rel : rel.slice(at + 1))
    }
  }
  const base = !pattern.includes("/")
  const matcher = new Minimatch(pattern, { dot: true, matchBase: base })
  // Where the RegExp is known to agree with `match`: no character class or extglob (a RegExp's "[^a]"
  // matches "/", a segment's does not), no "**" but a leading one followed by more segments ("a/**" as a
  // RegExp also matches "a"; `match` does not).
  const plain =
    !/[[(]/.test(pattern) &&
    matcher.set.every((segments) =>
      segments.every((part, index) => part !== GLOBSTAR || (index === 0 && segments.length > 1))
    )
  const regexp = !plain || matcher.negate || matcher.comment || matcher.empty ? false : matcher.makeRe()
  if (regexp === false) return (rel) => matcher.match(rel)
  if (!base) return (rel) => regexp.test(rel)
  // matchBase tests the last segment against one-segment alternatives only: mixed sets keep `match`.
  if (matcher.set.some((segments) => segments.length !== 1)) return (rel) => matcher.match(rel)
  return (rel) => regexp.test(rel.slice(rel.lastIndexOf("/") + 1))
}

/** A compiled set of globs; a glob without "/" matches a path's last segment at any depth. */
export class GlobSet {
  private readonly tests: ReadonlyArray<(rel: string) => boolean>
  constructor(readonly patterns: ReadonlyArray<string>) {
    this.tests = patterns.map(globTest)
  }
  get isEmpty(): boolean {
    return this.tests.length === 0
  }
  /** True when a glob matches `rel` itself. */
  matches(rel: string): boolean {
    for (const test of this.tests) if (test(rel)) return true
    return false
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
