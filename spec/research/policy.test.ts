// The egress policy's pure rules (core/net/), the API the browser's proxy and the agents call: the address classes,
// the URL rule and robots.txt matching, each against a plain table.
import { describe, expect, it } from "vitest"
import { checkAddress, checkUrl, classifyAddress, parseRobots, robotsAllows } from "../../core/net/index.ts"

describe("classifyAddress / checkAddress", () => {
  it("classifies every range the policy names, including IPv4 inside IPv6 forms", () => {
    const table: Array<[string, string | undefined]> = [
      ["8.8.8.8", "public"],
      ["93.184.216.34", "public"],
      ["2606:4700::1111", "public"],
      ["127.0.0.1", "loopback"],
      ["127.255.255.254", "loopback"],
      ["::1", "loopback"],
      ["[::1]", "loopback"],
      ["0.0.0.0", "unspecified"],
      ["::", "unspecified"],
      ["10.0.0.1", "private"],
      ["172.16.0.1", "private"],
      ["172.31.255.255", "private"],
      ["172.32.0.1", "public"],
      ["192.168.1.1", "private"],
      ["100.64.0.1", "private"],
      ["fd12::1", "private"],
      ["fc00::1", "private"],
      ["169.254.1.1", "link-local"],
      ["fe80::1", "link-local"],
      ["fe80::1%eth0", "link-local"],
      ["169.254.169.254", "metadata"],
      ["fd00:ec2::254", "metadata"],
      ["::ffff:169.254.169.254", "metadata"],
      ["64:ff9b::a9fe:a9fe", "metadata"],
      ["::ffff:127.0.0.1", "loopback"],
      ["::ffff:7f00:1", "loopback"],
      ["::ffff:10.0.0.1", "private"],
      ["2002:7f00:1::", "loopback"],
      ["224.0.0.1", "reserved"],
      ["255.255.255.255", "reserved"],
      ["ff02::1", "reserved"],
      ["example.com", undefined],
      ["1::2::3", undefined],
      ["256.1.1.1", undefined],
      ["01.2.3.4", undefined]
    ]
    for (const [address, expected] of table) expect(classifyAddress(address), address).toBe(expected)
  })

  it("metadata is refused with allowPrivateNetwork on; loopback only with it off; a name is never an address", () => {
    expect(checkAddress("169.254.169.254", { allowPrivateNetwork: true }).allowed).toBe(false)
    expect(checkAddress("127.0.0.1", { allowPrivateNetwork: true }).allowed).toBe(true)
    expect(checkAddress("127.0.0.1", { allowPrivateNetwork: false })).toMatchObject({
      allowed: false,
      class: "loopback"
    })
    expect(checkAddress("example.com", { allowPrivateNetwork: true }).allowed).toBe(false)
  })
})

describe("checkUrl", () => {
  it("normalises, refuses schemes, credentials, length and refused literals with a reason", () => {
    const policy = { allowPrivateNetwork: false }
    expect(checkUrl("HTTPS://Example.COM:443/a/../b?x=1#frag", policy)).toEqual({
      ok: true,
      url: "https://example.com/b?x=1",
      host: "example.com",
      origin: "https://example.com"
    })
    expect(checkUrl("file:///etc/passwd", policy)).toMatchObject({ ok: false, reason: "scheme" })
    expect(checkUrl("https://u:p@example.com/", policy)).toMatchObject({ ok: false, reason: "credentials" })
    expect(checkUrl(`https://example.com/${"a".repeat(8200)}`, policy)).toMatchObject({ ok: false, reason: "length" })
    expect(checkUrl("http://[::1]/", policy)).toMatchObject({
      ok: false,
      reason: "address",
      address: "::1",
      addressClass: "loopback"
    })
    expect(checkUrl("http://0x7f000001/", policy)).toMatchObject({ ok: false, reason: "address", address: "127.0.0.1" })
    expect(checkUrl("not a url", policy)).toMatchObject({ ok: false, reason: "invalid" })
  })
})

describe("robots.txt rules (RFC 9309)", () => {
  it("longest match wins, allow wins a tie, * and $ wildcards, our group before *", () => {
    const rules = parseRobots(
      "User-agent: *\nDisallow: /\n\nUser-agent: agentic-workspace\nUser-agent: other\nDisallow: /private\nAllow: /private/ok\nDisallow: /*.pdf$\nAllow: /tie\nDisallow: /tie\n",
      "agentic-workspace"
    )
    const table: Array<[string, boolean]> = [
      ["/", true],
      ["/page", true],
      ["/private", false],
      ["/private/x", false],
      ["/private/ok/x", true],
      ["/doc.pdf", false],
      ["/doc.pdf?x=1", true],
      ["/tie", true]
    ]
    for (const [path, allowed] of table) expect(robotsAllows(rules, path), path).toBe(allowed)
    expect(robotsAllows(parseRobots("User-agent: *\nDisallow: /\n", "agentic-workspace"), "/x")).toBe(false)
    expect(robotsAllows(parseRobots("User-agent: *\nDisallow:\n", "agentic-workspace"), "/x")).toBe(true)
    expect(robotsAllows(parseRobots("", "agentic-workspace"), "/x")).toBe(true)
  })
})
