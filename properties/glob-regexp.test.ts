/**
 * Law: GlobSet (minimatch's RegExp of each glob, tested against the path or, for a glob without "/", its
 * last segment) answers exactly what minimatch's own `match` answers with the options GlobSet always
 * used (dot, matchBase for a glob without "/"), for every workspace-relative path (no empty, "." or
 * ".." segment). Oracle: Minimatch.match on random globs and paths.
 */
import fc from "fast-check"
import { Minimatch } from "minimatch"
import { describe, expect, it } from "vitest"
import { GlobSet } from "../core/services/searchCore.ts"
import { runs } from "./runs.ts"

const seed = Number(process.env.FC_SEED ?? 20261201)

const piece = fc.constantFrom(
  "a",
  "b",
  "ab",
  ".",
  ".a",
  "..",
  "./",
  "*",
  "**",
  "?",
  "/",
  "**/",
  "/**",
  "[ab]",
  "[!a]",
  "{a,b}",
  "{a,b/c}",
  "*.ts",
  "!",
  "#",
  "\\*",
  "+(a)",
  "@(a|b)",
  "-",
  " "
)
const glob = fc.array(piece, { minLength: 0, maxLength: 6 }).map((parts) => parts.join(""))
const segment = fc
  .array(fc.constantFrom("a", "b", "c", ".", "-", "*", "t", "s", " ", "é", "ab"), { minLength: 1, maxLength: 4 })
  .map((parts) => parts.join(""))
  .filter((name) => name !== "." && name !== "..")
const rel = fc.array(segment, { minLength: 1, maxLength: 5 }).map((parts) => parts.join("/"))

const oracle = (pattern: string, path: string) =>
  new Minimatch(pattern, { dot: true, matchBase: !pattern.includes("/") }).match(path)

describe("GlobSet's RegExp test agrees with minimatch's match", () => {
  it("on random globs and workspace-relative paths", () => {
    fc.assert(
      fc.property(glob, fc.array(rel, { minLength: 1, maxLength: 8 }), (pattern, paths) => {
        const set = new GlobSet([pattern])
        for (const path of paths)
          expect([pattern, path, set.matches(path)]).toEqual([pattern, path, oracle(pattern, path)])
      }),
      { seed, numRuns: runs(Number(process.env.FC_RUNS ?? 3000)) }
    )
  })
  it("on the globs a find and the excludes use most", () => {
    const patterns = ["**/*.ts", "*.ts", "src/**", "**/node_modules", "dist", "*.{js,ts}", "a/*/b", "**/a/**/b.ts"]
    const paths = ["a.ts", "src/a.ts", "src/x/y/b.ts", "node_modules", "x/node_modules", "dist", "a/dist/x", "a/c/b"]
    for (const pattern of patterns)
      for (const path of paths)
        expect([pattern, path, new GlobSet([pattern]).matches(path)]).toEqual([pattern, path, oracle(pattern, path)])
  })
})
