// Issue 14, bad input: "a non-http scheme (file:, javascript:, data:), a URL over 8 KB, a note citing a missing source,
// a note kind outside the five: clear INVALID_INPUT, nothing written."
import { afterEach, describe, expect, it } from "vitest"
import { snapshotTree } from "../support/workspace.ts"
import { cleanup, data, research, server, workspace } from "./support.ts"

afterEach(cleanup)

describe("bad input: INVALID_INPUT naming the repair, nothing written, nothing sent, never staged", () => {
  it("each row of the table", async () => {
    const s = await server()
    // Manual mode: a bad call that reached the gate would be staged (and write the approvals store).
    const ws = await workspace({ permissionMode: 0 })
    const researchId = data(await research(ws, { action: "start", title: "T" }))["researchId"]
    const rows: Array<[string, Record<string, unknown>, RegExp]> = [
      ["file: scheme", { action: "fetch", url: "file:///etc/passwd" }, /only http: and https:/],
      ["javascript: scheme", { action: "fetch", url: "javascript:alert(document.cookie)" }, /only http: and https:/],
      ["data: scheme", { action: "fetch", url: "data:text/html,<script>alert(1)</script>" }, /only http: and https:/],
      ["ftp: scheme", { action: "fetch", url: "ftp://example.com/file" }, /only http: and https:/],
      [
        "a URL over 8 KB",
        { action: "fetch", url: `https://example.com/?q=${"a".repeat(8200)}` },
        /at most 8192 characters/
      ],
      ["not a URL", { action: "fetch", url: "example.com/page" }, /absolute URL/],
      [
        "credentials in the URL",
        { action: "fetch", url: `${s.origin.replace("http://", "http://user:pw@")}/` },
        /user name or password/
      ],
      ["an empty URL", { action: "fetch", url: "  " }, /must not be empty/],
      [
        "a note citing a missing source",
        { action: "note", research_id: researchId, kind: "finding", text: "x", source_ids: ["source_missing"] },
        /source_missing/
      ],
      [
        "a note kind outside the five",
        { action: "note", research_id: researchId, kind: "rumour", text: "x" },
        /finding|claim|question|warning|method/
      ],
      [
        "a finding without sources",
        { action: "note", research_id: researchId, kind: "finding", text: "x" },
        /source_ids/
      ],
      ["an empty query", { action: "search", query: "   " }, /must not be empty/],
      ["an unknown provider", { action: "search", query: "x", provider: "google" }, /auto|duckduckgo/],
      ["a limit out of range", { action: "search", query: "x", limit: 51 }, /limit/],
      [
        "a malformed research_id",
        { action: "fetch", url: "https://example.com/", research_id: "../../etc" },
        /research_\*/
      ],
      ["an unknown field", { action: "fetch", url: "https://example.com/", headers: { cookie: "x" } }, /headers/]
    ]
    const before = await snapshotTree(ws.dir)
    for (const [name, args, message] of rows) {
      const result = await research(ws, args)
      expect(result.ok, name).toBe(false)
      expect(result.error?.code, name).toBe("INVALID_INPUT")
      expect(result.error?.message, name).toMatch(message)
    }
    expect(await snapshotTree(ws.dir)).toEqual(before)
    expect(s.seen).toEqual([])
  })
})
