/**
 * The approval prompt's Schema (core/gate/prompt.ts), which every read of the approvals store decodes a stored
 * prompt with: each gate kind's tag and fields, the optional ones, and what a record may not carry. And the
 * browser prompt's page line. spec/kernel/hash-prompt.test.ts has the other lines and the stored clip.
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import {
  AgentPrompt,
  BrowserPrompt,
  CommandPrompt,
  Prompt,
  promptLines,
  TransactionPrompt,
  VcsPrompt,
  WebPrompt
} from "../../core/gate/prompt.ts"

const decode = (value: unknown) => Schema.decodeUnknownEither(Prompt)(value)
const decodes = (value: unknown) => {
  const result = decode(value)
  if (Either.isLeft(result)) throw new Error(`expected ${JSON.stringify(value)} to decode: ${result.left.message}`)
  return result.right
}

const EXAMPLES = {
  transaction: { _tag: "transaction", diff: "+a", paths: ["a.txt"] },
  command: { _tag: "command", argv: ["npm", "test"], cwd: "" },
  vcs: { _tag: "vcs", argv: ["git", "push"], cwd: "", refs: ["main"] },
  web: { _tag: "web", url: "https://example.com/", query: "q" },
  browser: { _tag: "browser", session: "s1", page: "https://example.com/", control: "click #go" },
  agent: { _tag: "agent", objective: "fix it", reach: { commitEdits: true, commands: false, web: true } }
} as const

describe("the prompt Schema a stored record is decoded with", () => {
  it("each gate kind decodes under its own tag, with every field kept", () => {
    for (const example of Object.values(EXAMPLES)) expect(decodes(example)).toEqual(example)
    const members: ReadonlyArray<readonly [Schema.Schema.AnyNoContext, unknown]> = [
      [TransactionPrompt, EXAMPLES.transaction],
      [CommandPrompt, EXAMPLES.command],
      [VcsPrompt, EXAMPLES.vcs],
      [WebPrompt, EXAMPLES.web],
      [BrowserPrompt, EXAMPLES.browser],
      [AgentPrompt, EXAMPLES.agent]
    ]
    expect(members.map(([member, example]) => Schema.decodeUnknownSync(member)(example)._tag)).toEqual([
      "transaction",
      "command",
      "vcs",
      "web",
      "browser",
      "agent"
    ])
  })

  it("a web prompt's url and query, and a browser prompt's page, are optional (records staged before page existed decode)", () => {
    expect(decodes({ _tag: "web" })).toEqual({ _tag: "web" })
    expect(decodes({ _tag: "web", url: "https://x/" })).toEqual({ _tag: "web", url: "https://x/" })
    expect(decodes({ _tag: "web", query: "q" })).toEqual({ _tag: "web", query: "q" })
    expect(decodes({ _tag: "browser", session: "s", control: "back" })).toEqual({
      _tag: "browser",
      session: "s",
      control: "back"
    })
  })

  it("an unknown tag, a missing or mistyped field is refused", () => {
    const bad: ReadonlyArray<unknown> = [
      { ...EXAMPLES.transaction, _tag: "plan" },
      { _tag: "transaction", diff: "+a" },
      { _tag: "transaction", paths: [] },
      { ...EXAMPLES.transaction, paths: [1] },
      { _tag: "command", argv: ["x"] },
      { _tag: "command", cwd: "" },
      { ...EXAMPLES.command, argv: "npm test" },
      { _tag: "vcs", argv: ["git"], cwd: "" },
      { ...EXAMPLES.vcs, cwd: 1 },
      { ...EXAMPLES.vcs, refs: [2] },
      { _tag: "web", url: 1 },
      { _tag: "web", query: null },
      { _tag: "browser", control: "x" },
      { _tag: "browser", session: "s" },
      { ...EXAMPLES.browser, page: 3 },
      { _tag: "agent", objective: "o" },
      { _tag: "agent", reach: EXAMPLES.agent.reach },
      { ...EXAMPLES.agent, reach: { commitEdits: true, commands: false } },
      { ...EXAMPLES.agent, reach: { commitEdits: true, commands: false, web: "yes" } },
      { ...EXAMPLES.agent, objective: 5 },
      "transaction",
      null
    ]
    for (const value of bad) expect(Either.isLeft(decode(value)), JSON.stringify(value)).toBe(true)
  })
})

describe("the browser prompt's line", () => {
  it("names the session, the page it acts on when known, and the control", () => {
    expect(promptLines(EXAMPLES.browser)).toEqual(["Browser session s1 on https://example.com/: click #go"])
    expect(promptLines({ _tag: "browser", session: "s2", control: "reload" })).toEqual(["Browser session s2: reload"])
  })
})
