/**
 * The coverage table of the Workspaces reference (spec/workspaces/WORKSPACES_INTEGRATION.md, the seed
 * document verbatim): the reference is split into sentences, and every sentence must be either quoted by
 * the name of a test in spec/workspaces or the Workspaces properties (a faithful quote: the whole sentence,
 * or at least 40 consecutive characters of it, case and whitespace aside), or listed below as not a
 * requirement of this build with the reason, the not-applicable ones also documented in docs/WORKSPACES.md
 * "Not applicable on git". A new or reworded sentence without a quoting test fails here, and so does a
 * list entry that no longer names a sentence. `WORKSPACES_COVERAGE=1` prints the table.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { REPO } from "../support/workspace.ts"

const REFERENCE = path.join(REPO, "spec/workspaces/WORKSPACES_INTEGRATION.md")
const DOC = path.join(REPO, "docs/WORKSPACES.md")
const QUOTE = 40

/**
 * Sentences that state no requirement a test could check: orientation, navigation and pointers to other
 * documents. Keyed by the sentence's start.
 */
const NOT_A_REQUIREMENT: Record<string, string> = {
  "Native capability boundaries, bounded reads": "the page's tagline",
  "This reference covers native Workspaces integration": "the page's scope",
  "For ordinary project tasks, start with Workspaces": "a pointer to another page",
  "Base read_workspace arguments are": "introduces the example that the limit/offset sentences state",
  "Observe using":
    "introduces the example get_workspace_operation takes ({request_id}), checked by the Pass this to get_workspace_operation test",
  "See native C++ Workspaces commands for installed executable usage": "a pointer to the native CLI's own page",
  "The native CLI is not documented as an MCP server": "a statement about the native CLI's documentation",
  "trace-cli above means the verified installed executable":
    "names the example executable (here bin/agentic-workspace.js, which the specs run by its full path)"
}

/**
 * Sentences about a native desktop host that do not apply to this build on git; each is in
 * docs/WORKSPACES.md "Not applicable on git" with the substitute, and where a substitute can be checked a
 * test above quotes the sentence too.
 */
const NOT_APPLICABLE: Record<string, string> = {
  "Trace desktop owns native working-copy review":
    "there is no desktop app: this toolkit owns the working copy's review (the approval gate) and its operations",
  "Use the executable bundled with the Trace app":
    "there is no app to sign in to: the CLI is this package's bin and needs no sign-in",
  "The native CLI restores that desktop session":
    "there is no desktop session or CLI credential; git and gh keep their own credentials",
  "Other clients and the Electron Trace Plugin":
    "there is no shared service: every client (CLI, MCP, LM Studio) runs this same host, which advertises by what it supports",
  "The CLI reads the existing desktop session and registry":
    "no desktop session: the CLI reads the workspace's own approvals and receipts in .agentic/ (checked by the confirm test)",
  "CLI status has no unsaved GUI buffer knowledge":
    "there are no GUI buffers: every read is of saved files (checked by the CLI status test)",
  "Save intended work and close affected editors":
    "there are no editors to close; the context binds the saved tree, so a save after review makes a mutation CONTEXT_STALE",
  "headless_succeeded proves the supported saved-file verification path":
    "no headless_succeeded field: every action here is headless; phases.reloaded stays false (checked by its test)",
  "For applied headless work, editor_reloaded=false remains false":
    "the phase is named reloaded here (issue 13); it stays false (checked by its test)"
}

/** The reference's sentences: headings, the JSON examples and the command lines left out. */
const sentences = (): Array<string> => {
  const text = fs.readFileSync(REFERENCE, "utf8")
  const out: Array<string> = []
  for (const paragraph of text.split(/\n\s*\n/).slice(1)) {
    const trimmed = paragraph.trim()
    if (trimmed === "" || /^[{}]/.test(trimmed) || /^trace-cli workspaces /.test(trimmed)) continue
    const flat = trimmed
      .split("\n")
      .map((line) => line.replace(/^\s*•\s*/, ""))
      .join(" ")
      .replace(/\s+/g, " ")
    // A heading has no closing punctuation.
    if (!/[.!?:]$/.test(flat)) continue
    out.push(...flat.split(/(?<=[.!?])\s+/))
  }
  return out
}

const normalize = (text: string) =>
  text.replace(/\\(.)/g, "$1").replace(/\s+/g, " ").replace(/[.:]$/, "").trim().toLowerCase()

/** The names of the tests of the Workspaces specs and properties, read from their sources. */
const testNames = (): Array<{ file: string; name: string }> => {
  const files = [
    ...fs
      .readdirSync(path.join(REPO, "spec/workspaces"))
      .filter((name) => name.endsWith(".test.ts"))
      .map((name) => `spec/workspaces/${name}`),
    "properties/workspaces-receipts.test.ts"
  ]
  const out: Array<{ file: string; name: string }> = []
  for (const file of files) {
    const source = fs.readFileSync(path.join(REPO, file), "utf8")
    for (const match of source.matchAll(/\bit(?:\.skip)?\(\s*"((?:[^"\\]|\\.)*)"/g))
      if (!match[1]!.startsWith("coverage:")) out.push({ file, name: match[1]! })
  }
  return out
}

/** The tests quoting `sentence`: a name holding the whole sentence or 40 consecutive characters of it. */
const quoting = (sentence: string, names: ReadonlyArray<{ file: string; name: string }>) => {
  const wanted = normalize(sentence)
  const size = Math.min(QUOTE, wanted.length)
  return names.filter(({ name }) => {
    const have = normalize(name)
    for (let at = 0; at + size <= wanted.length; at++) if (have.includes(wanted.slice(at, at + size))) return true
    return false
  })
}

const listed = (sentence: string, list: Record<string, string>) =>
  Object.keys(list).find((start) => sentence.startsWith(start))

describe("reference sentences", () => {
  it("coverage: every sentence of WORKSPACES_INTEGRATION.md is quoted by a test name, or listed as no requirement or not applicable with why", () => {
    const all = sentences()
    expect(all.length).toBeGreaterThan(80)
    const names = testNames()
    const rows = all.map((sentence) => {
      const tests = quoting(sentence, names)
      const none = listed(sentence, NOT_A_REQUIREMENT)
      const na = listed(sentence, NOT_APPLICABLE)
      return { sentence, tests, none, na }
    })
    if (process.env["WORKSPACES_COVERAGE"] === "1")
      for (const row of rows)
        process.stdout.write(
          `${row.tests.length > 0 ? "TESTED" : row.na !== undefined ? "N/A   " : "NONE  "} ${row.sentence}\n${row.tests.map((t) => `         ${t.file}: ${t.name.slice(0, 110)}\n`).join("")}`
        )
    const uncovered = rows.filter((row) => row.tests.length === 0 && row.none === undefined && row.na === undefined)
    expect(
      uncovered.map((row) => row.sentence),
      "requirement sentences no test quotes"
    ).toEqual([])
    // A sentence that is no requirement is not also claimed by a test (the list would hide a real one).
    expect(rows.filter((row) => row.none !== undefined && row.tests.length > 0).map((row) => row.sentence)).toEqual([])
  })

  it("coverage: every list entry names a sentence of the reference, and every not-applicable one is documented in docs/WORKSPACES.md", () => {
    const all = sentences()
    for (const start of [...Object.keys(NOT_A_REQUIREMENT), ...Object.keys(NOT_APPLICABLE)])
      expect(
        all.filter((sentence) => sentence.startsWith(start)),
        start
      ).toHaveLength(1)
    const doc = fs.readFileSync(DOC, "utf8")
    const section = doc.slice(doc.indexOf("## Not applicable on git")).replace(/\s+/g, " ")
    expect(section.startsWith("## Not applicable on git")).toBe(true)
    for (const start of Object.keys(NOT_APPLICABLE)) expect(section, start).toContain(start)
  })

  it("coverage: the copy of the reference is the seed document as given (its title line and its last sentence)", () => {
    const text = fs.readFileSync(REFERENCE, "utf8")
    expect(text.split("\n")[0]).toBe(
      "# Trace Workspaces integration reference (seed document 003_38ac01551f8f6de5.txt, as given)"
    )
    expect(
      text.trimEnd().endsWith("they are not permission for shell Git, manual journal deletion or automatic replay.")
    ).toBe(true)
  })
})
