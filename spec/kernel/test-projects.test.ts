/**
 * Issue 28 item 6, the fast inner loop: the vitest projects of vitest.config.ts split every test file into
 * `fast` or `slow` (never both, never neither), a `fast` file starts nothing the inner loop cannot afford
 * (a child process, a browser, an MCP client, a model server), and every fast-check property takes its run
 * count from properties/runs.ts, so PROPERTY_RUNS_SCALE reaches it.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { minimatch } from "minimatch"
import { describe, expect, it } from "vitest"
import { FAST_SPECS, SLOW_PROPERTIES } from "../../vitest.config.ts"
import { REPO } from "../support/workspace.ts"

const filesUnder = (dir: string): Array<string> =>
  fs
    .readdirSync(path.join(REPO, dir), { recursive: true, encoding: "utf8" })
    .map((name) => `${dir}/${name.split(path.sep).join("/")}`)
    .filter((name) => name.endsWith(".test.ts"))
    .sort()

/** This file names the patterns it looks for, so it is left out of the text checks. */
const SELF = "spec/kernel/test-projects.test.ts"
const matches = (file: string, globs: ReadonlyArray<string>) => globs.some((glob) => minimatch(file, glob))
const specs = filesUnder("spec")
const properties = filesUnder("properties")
const fast = [
  ...properties.filter((file) => !matches(file, SLOW_PROPERTIES)),
  ...specs.filter((file) => matches(file, FAST_SPECS))
]
const slow = [
  ...specs.filter((file) => !matches(file, FAST_SPECS)),
  ...properties.filter((file) => matches(file, SLOW_PROPERTIES))
]

/** What a fast file may not use: each starts a process, a browser, a client or a server the inner loop waits on. */
const SLOW_MACHINERY: ReadonlyArray<[RegExp, string]> = [
  [/node:child_process|\bexecFile\b|\bspawn\(/, "a child process"],
  [/\brunCli\(/, "the real bin"],
  [/playwright|chromium/i, "a browser"],
  [/support\/mcp\.ts|@modelcontextprotocol\/sdk\/client/, "an MCP client"],
  [/support\/chatServer\.ts/, "a scripted model server"],
  [/adapters\/node\/(NodeProcesses|NodeBrowser|NodeRunWorkers|sandbox)\.ts/, "the Node host's processes or browser"]
]

describe("the vitest projects: fast and slow", () => {
  it("every test file is in exactly one project, and the listed fast specs exist", () => {
    expect(fast.length + slow.length).toBe(specs.length + properties.length)
    expect(fast.filter((file) => slow.includes(file))).toEqual([])
    for (const glob of [...FAST_SPECS, ...SLOW_PROPERTIES].filter((glob) => !glob.includes("*")))
      expect(fs.existsSync(path.join(REPO, glob)), `${glob} is named in vitest.config.ts but does not exist`).toBe(true)
  })

  it("a fast file starts no child process, browser, MCP client or model server (else it belongs in slow)", () => {
    const offenders = fast
      .filter((file) => file !== SELF)
      .flatMap((file) => {
        const text = fs.readFileSync(path.join(REPO, file), "utf8")
        return SLOW_MACHINERY.filter(([pattern]) => pattern.test(text)).map(([, what]) => `${file}: ${what}`)
      })
    expect(offenders).toEqual([])
  })

  it("every fast-check property takes numRuns from runs() (properties/runs.ts), so PROPERTY_RUNS_SCALE scales it", () => {
    const offenders = [...specs, ...properties]
      .filter((file) => file !== SELF)
      .flatMap((file) =>
        fs
          .readFileSync(path.join(REPO, file), "utf8")
          .split("\n")
          .flatMap((line, index) =>
            /numRuns:(?!\s*runs\()/.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : []
          )
      )
    expect(offenders).toEqual([])
  })

  it("a file that asserts a fast-check property gives it numRuns from runs() (fast-check's default 100 ignores the scale)", () => {
    const offenders = [...specs, ...properties]
      .filter((file) => file !== SELF)
      .filter((file) => {
        const text = fs.readFileSync(path.join(REPO, file), "utf8")
        return /\bfc\.assert\(/.test(text) && !/numRuns:\s*runs\(/.test(text)
      })
    expect(offenders).toEqual([])
  })
})
