// The pure parts of workspace_browser: the egress address and URL rules, the snapshot renderer, where a ref stands.
import { describe, expect, it } from "vitest"
import type { AxNode } from "../../core/services/Browser.ts"
import { checkAddress, checkUrl } from "../../core/tools/browser/egress.ts"
import { refStanding, type SessionRecord } from "../../core/tools/browser/load.ts"
import { renderSnapshot, snapshotDiff } from "../../core/tools/browser/snapshot.ts"

describe("egress policy (core/net/, shared with workspace_research)", () => {
  it("'no private addresses unless allowPrivateNetwork': private, loopback, link-local refused without it, allowed with it; metadata always refused", () => {
    const table: ReadonlyArray<readonly [string, boolean, boolean]> = [
      // address, allowed without allowPrivateNetwork, allowed with it
      ["93.184.216.34", true, true],
      ["2606:4700::6810:85e5", true, true],
      ["127.0.0.1", false, true],
      ["::1", false, true],
      ["10.1.2.3", false, true],
      ["172.16.0.1", false, true],
      ["192.168.1.1", false, true],
      ["100.64.0.1", false, true],
      ["169.254.1.1", false, true],
      ["fe80::1", false, true],
      ["fd12::1", false, true],
      ["::ffff:127.0.0.1", false, true],
      ["0.0.0.0", false, true],
      ["169.254.169.254", false, false],
      ["fd00:ec2::254", false, false],
      ["::ffff:169.254.169.254", false, false],
      ["not-an-address", false, false]
    ]
    for (const [address, off, on] of table) {
      expect(checkAddress(address, { allowPrivateNetwork: false }).allowed, `${address} off`).toBe(off)
      expect(checkAddress(address, { allowPrivateNetwork: true }).allowed, `${address} on`).toBe(on)
    }
  })

  it("'http/https only; file: refused': the URL rule and the normal form an approval binds", () => {
    expect(checkUrl("HTTPS://Example.COM:443/a#top", { allowPrivateNetwork: false })).toEqual({
      ok: true,
      url: "https://example.com/a",
      host: "example.com",
      origin: "https://example.com"
    })
    for (const url of [
      "file:///etc/passwd",
      "javascript:alert(1)",
      "data:text/html,hi",
      "ftp://example.com/",
      "ws://example.com/"
    ]) {
      expect(checkUrl(url, { allowPrivateNetwork: true })).toMatchObject({ ok: false, reason: "scheme" })
    }
    expect(checkUrl("http://user:pw@example.com/", { allowPrivateNetwork: false })).toMatchObject({
      ok: false,
      reason: "credentials"
    })
    expect(checkUrl("http://127.0.0.1:8080/", { allowPrivateNetwork: false })).toMatchObject({
      ok: false,
      reason: "address"
    })
    expect(checkUrl("http://[::1]/", { allowPrivateNetwork: false })).toMatchObject({ ok: false, reason: "address" })
    expect(checkUrl("http://127.0.0.1:8080/", { allowPrivateNetwork: true })).toMatchObject({ ok: true })
    expect(checkUrl("http://169.254.169.254/", { allowPrivateNetwork: true })).toMatchObject({
      ok: false,
      reason: "address"
    })
    expect(checkUrl("not a url", { allowPrivateNetwork: true })).toMatchObject({ ok: false, reason: "invalid" })
  })
})

const node = (
  id: string,
  role: string,
  name: string,
  childIds: Array<string> = [],
  extra: Partial<AxNode> = {}
): AxNode => ({
  id,
  role,
  name,
  properties: {},
  childIds,
  path: `0.${id}`,
  ignored: false,
  ...extra
})

describe("snapshot rendering", () => {
  const tree: Array<AxNode> = [
    node("1", "RootWebArea", "Page", ["2"], { properties: { focusable: true } }),
    node("2", "generic", "", ["3", "4", "6", "8"], { ignored: true }),
    node("3", "heading", "Title", ["9"], { properties: { level: 1 } }),
    node("9", "StaticText", "Title"),
    node("4", "link", "Home", ["10"], { properties: { focusable: true, url: "https://example.com/" } }),
    node("10", "StaticText", "Home"),
    node("6", "textbox", "Email", ["11"], {
      value: "ada@example.com",
      properties: { focusable: true, required: true }
    }),
    node("11", "StaticText", "ada@example.com"),
    node("8", "checkbox", "News", [], { properties: { focusable: true, checked: "true" } })
  ]

  it("'role, name, value, state, and a ref like e12 for every actionable element', from the session's counter", () => {
    const rendered = renderSnapshot(tree, 12)
    expect(rendered.lines).toEqual([
      '- heading "Title" [level=1]',
      '- link "Home" <https://example.com/> [ref=e12]',
      '- textbox "Email" [required] value="ada@example.com" [ref=e13]',
      '- checkbox "News" [checked] [ref=e14]'
    ])
    expect(rendered.refs).toEqual({
      e12: { path: "0.4", role: "link", name: "Home" },
      e13: { path: "0.6", role: "textbox", name: "Email" },
      e14: { path: "0.8", role: "checkbox", name: "News" }
    })
    expect(rendered).toMatchObject({ firstRef: 12, nextRef: 15 })
    // The next snapshot of the same tree mints new refs.
    expect(renderSnapshot(tree, rendered.nextRef).lines[1]).toBe('- link "Home" <https://example.com/> [ref=e15]')
  })

  it("a subtree from a root node; the diff ignores refs", () => {
    expect(renderSnapshot(tree, 1, "4").lines).toEqual(['- link "Home" <https://example.com/> [ref=e1]'])
    const diff = snapshotDiff(["- a [ref=e1]", "- b"], ["- a [ref=e9]", "- c [ref=e10]"], 10)
    expect(diff).toEqual({ added: ["- c [ref=e10]"], removed: ["- b"], addedCount: 1, removedCount: 1 })
  })
})

describe("where a ref stands", () => {
  const record = {
    id: "bs_0000000000000001",
    nextRef: 30,
    latest: { snapshotId: "c".repeat(64), refs: { e20: { path: "0.5", role: "button", name: "Go" } } },
    history: [
      { snapshotId: "c".repeat(64), firstRef: 20, nextRef: 30 },
      { snapshotId: "b".repeat(64), firstRef: 10, nextRef: 20 }
    ]
  } as unknown as SessionRecord
  it("'a ref from any snapshot but the latest is STALE_REF' (naming its snapshot); 'a ref that was never minted fails NOT_FOUND'", () => {
    expect(refStanding(record, "e20")).toMatchObject({ _tag: "Live", snapshotId: "c".repeat(64) })
    expect(refStanding(record, "e12")).toEqual({ _tag: "Stale", snapshotId: "b".repeat(64) })
    expect(refStanding(record, "e3")).toEqual({ _tag: "Stale", snapshotId: undefined })
    expect(refStanding(record, "e30")).toEqual({ _tag: "Unknown" })
    expect(refStanding(record, "e99999999999999999999")).toEqual({ _tag: "Unknown" })
  })
})
