/**
 * Issue 9, Deliver 3: the Deno host's search (Deno.Command was asked; Web Workers running the same
 * searchWorker.js were chosen, docs/INSPECT.md "Search on the Deno host"). The same queries over the same
 * real git tree, asked of the Node host's Search in this process and of the Deno host's Search in a
 * `deno run` child, give equal answers: matches (lines, columns, clipped text, context), file lists,
 * counts, complete/capped, tooLarge, binarySkipped, .gitignore handling and the candidate source (git
 * inside a work tree, the walk outside it); and a deadline stops both with the catastrophic file not searched.
 */
import { execFile, execFileSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeNodeSearch } from "../../adapters/node/NodeSearch.ts"
import { DENO } from "../support/mcp.ts"
import { REPO } from "../support/workspace.ts"

const CHILD = path.join(REPO, "spec/adapters/deno/support/search_child.ts")

type Query = { kind: "walk" | "grep" | "grepText"; options: Record<string, unknown> }

const grep = (extra: Record<string, unknown>) => ({
  kind: "grep" as const,
  options: {
    base: "",
    includeIgnored: false,
    excludes: [],
    include: [],
    context: 0,
    maxMatches: 1000,
    maxLineChars: 40,
    maxFileBytes: 4096,
    ...extra
  }
})
const walk = (extra: Record<string, unknown>) => ({
  kind: "walk" as const,
  options: { base: "", includeIgnored: false, excludes: [], directories: true, maxEntries: 10_000, ...extra }
})

const QUERIES: ReadonlyArray<Query> = [
  walk({}),
  walk({ includeIgnored: true }),
  walk({ base: "src", maxDepth: 1 }),
  walk({ excludes: ["**/deep/**"], directories: false }),
  walk({ maxEntries: 5 }),
  grep({ source: "needle", flags: "m", literal: "needle" }),
  grep({ source: "NEEDLE", flags: "mi", literal: "NEEDLE" }),
  grep({ source: "ne+dle\\s+\\d+", flags: "m" }),
  grep({ source: "needle", flags: "m", literal: "needle", context: 2 }),
  grep({ source: "needle", flags: "m", literal: "needle", maxMatches: 7 }),
  grep({ source: "needle", flags: "m", literal: "needle", include: ["**/*.ts"] }),
  grep({ source: "needle", flags: "m", literal: "needle", includeIgnored: true }),
  grep({ source: "needle", flags: "m", literal: "needle", base: "src", excludes: ["src/deep/**"] }),
  grep({ source: "ünï", flags: "m", literal: "ünï" }),
  grep({ source: "^BOM", flags: "m" }),
  grep({ source: "crlf$", flags: "m", literal: "crlf" }),
  {
    kind: "grepText",
    options: {
      path: "given.txt",
      text: "a needle\nb\nneedle c\n",
      source: "needle",
      flags: "m",
      context: 1,
      maxLineChars: 40
    }
  }
]

let base = ""
const repo = () => path.join(base, "repo")
const plain = () => path.join(base, "plain")

const write = async (root: string, rel: string, content: string | Uint8Array) => {
  await fs.mkdir(path.dirname(path.join(root, rel)), { recursive: true })
  await fs.writeFile(path.join(root, rel), content)
}

/** One tree, written into a git work tree (committed, plus untracked and ignored files) and into a plain folder. */
const fill = async (root: string) => {
  await write(root, ".gitignore", "dist/\n*.log\n!keep.log\n")
  await write(root, "src/.gitignore", "generated/\n")
  await write(root, "src/a.ts", "one\nneedle 1\nthree\nneedle  22 again\nfive\n")
  await write(root, "src/b.js", "NEEDLE upper\nneedle lower\n")
  await write(root, "src/deep/c.ts", `${"x".repeat(100)} needle in a long line ${"y".repeat(100)}\n`)
  await write(root, "src/generated/g.ts", "needle generated\n")
  for (let index = 0; index < 12; index++)
    await write(root, `many/f${String(index).padStart(2, "0")}.txt`, "needle\nneedle\n")
  await write(root, "dist/out.js", "needle dist\n")
  await write(root, "debug.log", "needle log\n")
  await write(root, "keep.log", "needle kept\n")
  await write(root, "bin.dat", new Uint8Array([110, 101, 101, 100, 108, 101, 0, 1, 2]))
  await write(root, "big.txt", `needle\n${"z".repeat(5000)}\n`)
  await write(root, "unicode.md", "plain\nünï needle\n")
  await write(root, "bom.txt", "\ufeffBOM first\nneedle\n")
  await write(root, "crlf.txt", "line crlf\r\nneedle crlf\r\n")
  await fs.symlink("src/a.ts", path.join(root, "link.ts"))
}

/** Both hosts take git's candidate list for every use: the opt-in path (the default walks) must agree too. */
const GIT_EVERYWHERE = { list: true, search: true } as const

const nodeAnswers = async (root: string, gitFor?: typeof GIT_EVERYWHERE) => {
  const search = makeNodeSearch(root, 2, undefined, undefined, gitFor)
  try {
    const out: Array<unknown> = []
    for (const query of QUERIES) {
      const options = query.options as never
      const result: unknown = await Effect.runPromise<unknown, unknown>(
        query.kind === "walk"
          ? search.walk(options)
          : query.kind === "grep"
            ? search.grep(options)
            : search.grepText(options)
      )
      const source =
        query.kind === "grepText"
          ? undefined
          : await Effect.runPromise(
              search.candidatesFrom(
                query.kind === "walk"
                  ? (query.options as never)
                  : ({ ...query.options, directories: false, maxEntries: Number.MAX_SAFE_INTEGER } as never),
                query.kind === "walk" ? "list" : "search"
              )
            )
      out.push({ source, result })
    }
    return out
  } finally {
    await search.close()
  }
}

const denoAnswers = async (
  root: string,
  queries: ReadonlyArray<Query> = QUERIES,
  gitFor?: typeof GIT_EVERYWHERE
): Promise<Array<any>> => {
  const file = path.join(base, `queries-${Math.random().toString(36).slice(2)}.json`)
  await fs.writeFile(file, JSON.stringify(queries))
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(
      DENO,
      ["run", "-A", CHILD, root, file, ...(gitFor === undefined ? [] : [JSON.stringify(gitFor)])],
      { maxBuffer: 64 * 1024 * 1024 },
      (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out))
    )
  )
  return JSON.parse(stdout)
}

beforeAll(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "aw-deno-parity-")))
  await fill(repo())
  await fill(plain())
  const git = (...args: Array<string>) => execFileSync("git", args, { cwd: repo(), stdio: "pipe" })
  git("init", "-q")
  git("config", "user.name", "Parity")
  git("config", "user.email", "parity@example.invalid")
  git("add", "-A")
  git("commit", "-qm", "tree")
  // After the commit: an untracked file (listed by git ls-files --others) and an ignored one.
  await write(repo(), "src/untracked.ts", "needle untracked\n")
  await write(plain(), "src/untracked.ts", "needle untracked\n")
}, 60_000)

afterAll(async () => {
  await fs.rm(base, { recursive: true, force: true })
})

describe("the Deno host's search equals the Node host's (issue 9, Deliver 3: Deno search)", () => {
  it("inside a git work tree, on git's candidate list (opted in): the same matches, file lists, counts, complete and candidate source", async () => {
    const node = await nodeAnswers(repo(), GIT_EVERYWHERE)
    const deno = await denoAnswers(repo(), QUERIES, GIT_EVERYWHERE)
    expect(deno).toEqual(node)
    // The queries mean something: the search used git's list, the cap and .gitignore took effect.
    const found = node as Array<{ source?: string; result: any }>
    expect(found[5]!.source).toBe("git")
    expect(found[5]!.result.matches.map((match: { path: string }) => match.path)).not.toContain("dist/out.js")
    expect(found[5]!.result.matches.map((match: { path: string }) => match.path)).toContain("keep.log")
    expect(found[5]!.result.binarySkipped).toBe(1)
    expect(found[5]!.result.tooLarge).toEqual(["big.txt"])
    expect(found[9]!.result.capped).toBe(true)
    expect(found[9]!.result.matches).toHaveLength(7)
    expect(found[4]!.result.complete).toBe(false)
  }, 120_000)

  it("inside a git work tree with the hosts' defaults (the walk): the same answers as git's list gave", async () => {
    const viaGit = await nodeAnswers(repo(), GIT_EVERYWHERE)
    const node = await nodeAnswers(repo())
    const deno = await denoAnswers(repo())
    expect(deno).toEqual(node)
    const sources = (node as Array<{ source?: string }>).map((answer) => answer.source)
    expect(sources.filter((source) => source !== undefined).every((source) => source === "walk")).toBe(true)
    // The candidate source aside, the walk answers exactly what git's list answered.
    const strip = (answers: Array<unknown>) => (answers as Array<{ result: unknown }>).map((answer) => answer.result)
    expect(strip(node)).toEqual(strip(viaGit))
  }, 120_000)

  it("outside any work tree (the walk): the same answers", async () => {
    const node = await nodeAnswers(plain())
    const deno = await denoAnswers(plain())
    expect(deno).toEqual(node)
    expect((node as Array<{ source?: string }>)[5]!.source).toBe("walk")
  }, 120_000)

  it("a catastrophic regex past the deadline: timedOut on both, with the catastrophic file among those not searched", async () => {
    const root = path.join(base, "redos")
    await write(root, "a.txt", "aaa\n")
    await write(root, "victim.txt", `${"a".repeat(36)}!\n`)
    const query = grep({ source: "^(a+)+$", flags: "m", timeoutMs: 1500, maxFileBytes: 1_000_000 })
    const search = makeNodeSearch(root, 1)
    const node = await Effect.runPromise(search.grep(query.options as never)).finally(() => search.close())
    const [deno] = await denoAnswers(root, [query])
    for (const answer of [node, deno.result]) {
      expect(answer.timedOut).toBe(true)
      expect(answer.notSearched).toContain("victim.txt")
    }
  }, 120_000)
})
