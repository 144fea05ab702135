/**
 * The hashing (core/gate/hash.ts) and the approval prompts (core/gate/prompt.ts) on exact examples: the
 * stable JSON an approval is bound to, SHA-256 against a known digest, fresh ids, the stored prompt's clip
 * and the lines every host shows. properties/operation-hash.test.ts holds the hash's properties.
 */
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { hashOperation, newId, sha256Bytes, sha256Text, stableStringify } from "../../core/gate/hash.ts"
import { type Prompt, promptLines, RECORD_DIFF_CHARS, storedPrompt } from "../../core/gate/prompt.ts"

const run = <A>(effect: Effect.Effect<A>) => Effect.runPromise(effect)
const ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

describe("the hash an approval is bound to", () => {
  it("stable JSON: keys sorted at every depth, undefined members dropped, undefined items and values as null", () => {
    expect(stableStringify({ b: 1, a: { d: [1, { f: true, e: null }], c: "x" } })).toBe(
      '{"a":{"c":"x","d":[1,{"e":null,"f":true}]},"b":1}'
    )
    expect(stableStringify({ a: undefined, b: 2 })).toBe('{"b":2}')
    expect(stableStringify([undefined, 1])).toBe("[null,1]")
    expect(stableStringify(undefined)).toBe("null")
    expect(stableStringify(null)).toBe("null")
    expect(stableStringify("s")).toBe('"s"')
    expect(stableStringify(3)).toBe("3")
    expect(stableStringify([])).toBe("[]")
    expect(stableStringify({})).toBe("{}")
    expect(stableStringify({ 'q"': 1 })).toBe('{"q\\"":1}')
  })

  it("SHA-256 as lowercase hex (leading zero bytes kept), of text as UTF-8 and of bytes", async () => {
    expect(await run(sha256Text("abc"))).toBe(ABC)
    expect(await run(sha256Bytes(new TextEncoder().encode("abc")))).toBe(ABC)
    expect(await run(sha256Text(""))).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    expect(await run(sha256Text("é"))).toBe(await run(sha256Bytes(new Uint8Array([0xc3, 0xa9]))))
  })

  it("hashOperation is the SHA-256 of the stable JSON: key order does not matter, a value does", async () => {
    expect(await run(hashOperation({ b: 1, a: 2 }))).toBe(await run(sha256Text('{"a":2,"b":1}')))
    expect(await run(hashOperation({ a: 2, b: 1 }))).toBe(await run(hashOperation({ b: 1, a: 2 })))
    expect(await run(hashOperation({ a: 2, b: 2 }))).not.toBe(await run(hashOperation({ a: 2, b: 1 })))
  })

  it("fresh ids: the prefix, an underscore and 16 hex digits, never the same twice", async () => {
    const ids = await run(Effect.all(Array.from({ length: 50 }, () => newId("approval"))))
    for (const id of ids) expect(id).toMatch(/^approval_[0-9a-f]{16}$/)
    expect(new Set(ids).size).toBe(50)
    expect(await run(newId("tx"))).toMatch(/^tx_[0-9a-f]{16}$/)
  })
})

describe("the approval prompts", () => {
  it("a stored transaction prompt keeps 4000 characters of its diff and says where the rest is", () => {
    expect(RECORD_DIFF_CHARS).toBe(4000)
    const exact: Prompt = { _tag: "transaction", diff: "d".repeat(4000), paths: ["a"] }
    expect(storedPrompt(exact)).toBe(exact)
    const over: Prompt = { _tag: "transaction", diff: `${"d".repeat(4000)}e`, paths: ["a"] }
    expect(storedPrompt(over)).toEqual({
      _tag: "transaction",
      diff: `${"d".repeat(4000)}\n… (diff clipped; the full diff is in the transaction's changes.diff)`,
      paths: ["a"]
    })
    const command: Prompt = { _tag: "command", argv: ["x".repeat(5000)], cwd: "" }
    expect(storedPrompt(command)).toBe(command)
  })

  it("the lines of a transaction: its files (or none) and the diff, clipped to maxChars", () => {
    expect(promptLines({ _tag: "transaction", diff: "+a", paths: ["a.txt", "b.txt"] })).toEqual([
      "Files: a.txt, b.txt",
      "Diff:",
      "+a"
    ])
    expect(promptLines({ _tag: "transaction", diff: "", paths: [] })).toEqual(["Files: (none)", "Diff:", ""])
    expect(promptLines({ _tag: "transaction", diff: "abcdef", paths: ["a"] }, 4)).toEqual([
      "Files: a",
      "Diff:",
      "abcd\n… (2 more characters)"
    ])
    expect(promptLines({ _tag: "transaction", diff: "abcd", paths: ["a"] }, 4)).toEqual(["Files: a", "Diff:", "abcd"])
    expect(promptLines({ _tag: "transaction", diff: "d".repeat(6001), paths: ["a"] })[2]).toBe(
      `${"d".repeat(6000)}\n… (1 more characters)`
    )
  })

  it("the lines of a command and a vcs call: the argv quoted where a shell would read it otherwise, where, the refs", () => {
    expect(promptLines({ _tag: "command", argv: ["npm", "test"], cwd: "" })).toEqual([
      "Command: npm test",
      "In: the workspace root"
    ])
    expect(
      promptLines({ _tag: "command", argv: ["echo", "", "a b", "$x", "it's", "a|b", "plain-1.2/x"], cwd: "pkg" })
    ).toEqual(['Command: echo "" "a b" "$x" "it\'s" "a|b" plain-1.2/x', "In: pkg"])
    for (const special of ['"', "\\", "`", "&", ";", "<", ">", "(", ")", "*", "?", "\t"]) {
      expect(promptLines({ _tag: "command", argv: [`a${special}b`], cwd: "" })[0]).toBe(
        `Command: ${JSON.stringify(`a${special}b`)}`
      )
    }
    expect(promptLines({ _tag: "vcs", argv: ["git", "push"], cwd: "", refs: ["main", "origin/main"] })).toEqual([
      "Runs: git push",
      "In: the workspace root",
      "Refs: main, origin/main"
    ])
    expect(promptLines({ _tag: "vcs", argv: ["git", "add", "a b"], cwd: "sub", refs: [] })).toEqual([
      'Runs: git add "a b"',
      "In: sub"
    ])
  })

  it("the lines of a web request, a browser control and a sub-agent run", () => {
    expect(promptLines({ _tag: "web", url: "https://example.com/" })).toEqual(["Fetches: https://example.com/"])
    expect(promptLines({ _tag: "web", query: "effect schema" })).toEqual(["Searches the web for: effect schema"])
    expect(promptLines({ _tag: "web" })).toEqual(["Searches the web for: "])
    expect(promptLines({ _tag: "browser", session: "s1", control: "click #go" })).toEqual([
      "Browser session s1: click #go"
    ])
    expect(
      promptLines({ _tag: "agent", objective: "fix it", reach: { commitEdits: true, commands: true, web: true } })
    ).toEqual(["Sub-agent: fix it", "Reach: commits its edits; runs commands; reaches the web"])
    expect(
      promptLines({
        _tag: "agent",
        objective: "o".repeat(301),
        reach: { commitEdits: false, commands: false, web: false }
      })
    ).toEqual([
      `Sub-agent: ${"o".repeat(300)}\n… (1 more characters)`,
      "Reach: edits stay planned; no commands; no web"
    ])
  })
})
