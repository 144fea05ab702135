// Issue 14 §1, the network port and the egress policy: "One egress policy sits in front of every request".
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { guardedLookup } from "../../adapters/node/NodeHttp.ts"
import { makeGuardedAgent } from "../../adapters/node/NodeHttpAgent.ts"
import { EgressDeniedError } from "../../core/net/policy.ts"
import { REPO } from "../support/workspace.ts"
import { cleanup, data, redirect, reply, research, server, workspace, workspaceWith } from "./support.ts"

afterEach(cleanup)

const PAGE = "<html><head><title>Page</title></head><body><main><p>hello</p></main></body></html>"

describe("the network port: the core reaches the network only through HttpClient", () => {
  it("no file of core/ calls fetch, XMLHttpRequest, WebSocket or a socket API itself", () => {
    const offenders: Array<string> = []
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name)
        if (entry.isDirectory()) walk(full)
        else if (entry.name.endsWith(".ts")) {
          const text = fs.readFileSync(full, "utf8")
          if (
            /(^|[^\w.])fetch\(|globalThis\.fetch|XMLHttpRequest|new WebSocket|Deno\.connect|from "undici"|@effect\/platform-node/.test(
              text
            )
          )
            offenders.push(path.relative(REPO, full))
        }
      }
    }
    walk(path.join(REPO, "core"))
    expect(offenders).toEqual([])
    // ...and the research tool does reach it: through core/net/egress.ts, which asks HttpClient.
    expect(fs.readFileSync(path.join(REPO, "core/net/egress.ts"), "utf8")).toContain(
      'from "@effect/platform/HttpClient"'
    )
  })

  it("'a User-Agent that names the toolkit', and no tracing header leaks the caller's spans", async () => {
    const s = await server()
    s.route("/page", reply(PAGE))
    const ws = await workspace()
    expect((await research(ws, { action: "fetch", url: `${s.origin}/page` })).ok).toBe(true)
    for (const request of s.seen) {
      expect(request.headers["user-agent"]).toMatch(/^agentic-workspace\//)
      expect(request.headers["accept-encoding"]).toBe("identity")
      expect(request.headers["traceparent"]).toBeUndefined()
      expect(request.headers["b3"]).toBeUndefined()
    }
  })
})

describe("'http/https only; redirects followed by hand up to 5, each hop checked again'", () => {
  it("five redirects are followed, each hop requested once; data.url is the final URL and data.redirects the hops", async () => {
    const s = await server()
    for (let i = 0; i < 5; i++)
      s.route(`/r${i}`, redirect(i === 4 ? "/final" : `/r${i + 1}`, [301, 302, 303, 307, 308][i]))
    s.route("/final", reply(PAGE))
    const ws = await workspace()
    const result = await research(ws, { action: "fetch", url: `${s.origin}/r0` })
    expect(result.ok).toBe(true)
    expect(data(result)["url"]).toBe(`${s.origin}/final`)
    expect(data(result)["redirects"]).toEqual([0, 1, 2, 3, 4].map((i) => `${s.origin}/r${i}`))
    expect(s.pages().map((request) => request.url)).toEqual(["/r0", "/r1", "/r2", "/r3", "/r4", "/final"])
  })

  it("a sixth redirect is refused with EGRESS_DENIED (details.reason redirects) and its target is never requested", async () => {
    const s = await server()
    for (let i = 0; i < 6; i++) s.route(`/r${i}`, redirect(`/r${i + 1}`))
    s.route("/r6", reply(PAGE))
    const ws = await workspace()
    const result = await research(ws, { action: "fetch", url: `${s.origin}/r0` })
    expect(result.error?.code).toBe("EGRESS_DENIED")
    expect(result.error?.details?.["reason"]).toBe("redirects")
    expect(s.pages().map((request) => request.url)).not.toContain("/r6")
  })

  it("a redirect to a non-http(s) scheme (file:, ftp:, data:) is refused with EGRESS_DENIED, details.reason scheme", async () => {
    const s = await server()
    s.route("/file", redirect("file:///etc/passwd"))
    s.route("/ftp", redirect("ftp://example.com/x"))
    s.route("/data", redirect("data:text/plain,hi"))
    const ws = await workspace()
    for (const route of ["/file", "/ftp", "/data"]) {
      const result = await research(ws, { action: "fetch", url: `${s.origin}${route}` })
      expect(result.error?.code, route).toBe("EGRESS_DENIED")
      expect(result.error?.details?.["reason"], route).toBe("scheme")
    }
  })
})

describe("'loopback, private and link-local addresses refused with EGRESS_DENIED ... unless allowPrivateNetwork is true'", () => {
  it("IP literals of this machine and the local network, in every spelling, are refused before anything is sent", async () => {
    const s = await server()
    s.route("/page", reply(PAGE))
    const ws = await workspace({ allowPrivateNetwork: false })
    const urls = [
      `${s.origin}/page`,
      `http://127.1:${s.port}/page`,
      `http://0x7f.0.0.1:${s.port}/page`,
      `http://2130706433:${s.port}/page`,
      `http://[::1]:${s.port}/page`,
      `http://[::ffff:127.0.0.1]:${s.port}/page`,
      `http://0.0.0.0:${s.port}/page`,
      "http://10.1.2.3/",
      "http://192.168.0.1/",
      "http://172.16.5.4/",
      "http://169.254.10.10/",
      "http://[fe80::1]/",
      "http://[fd12:3456::1]/"
    ]
    for (const url of urls) {
      const result = await research(ws, { action: "fetch", url })
      expect(result.error?.code, url).toBe("EGRESS_DENIED")
      expect(result.error?.details?.["reason"], url).toBe("address")
    }
    expect(s.seen).toEqual([])
  })

  it("allowPrivateNetwork: true lets 127.0.0.1 through (the tests' servers live there)", async () => {
    const s = await server()
    s.route("/page", reply(PAGE))
    const ws = await workspace({ allowPrivateNetwork: true })
    expect((await research(ws, { action: "fetch", url: `${s.origin}/page` })).ok).toBe(true)
  })

  it("'cloud metadata addresses (169.254.169.254, fd00:ec2::254) refused always, whatever the setting'", async () => {
    const ws = await workspace({ allowPrivateNetwork: true })
    for (const url of [
      "http://169.254.169.254/latest/meta-data/",
      "http://[fd00:ec2::254]/latest/",
      "http://[::ffff:169.254.169.254]/"
    ]) {
      const result = await research(ws, { action: "fetch", url })
      expect(result.error?.code, url).toBe("EGRESS_DENIED")
      expect(result.error?.details?.["reason"], url).toBe("metadata")
    }
  })

  it("a redirect to 127.0.0.1 or to 169.254.169.254 with allowPrivateNetwork off is refused at that hop: its target is never requested", async () => {
    // The first hop must reach a server, and a test server can only live on loopback: the host's connector is
    // told to let loopback through (as if this server were a public one), while the settings the core checks each
    // hop against keep allowPrivateNetwork off. The redirect's target is then refused by the core's per-hop check.
    const s = await server()
    s.route("/to-loopback", redirect(`${s.origin}/secret`))
    s.route("/to-metadata", redirect("http://169.254.169.254/latest/meta-data/iam/"))
    s.route("/secret", reply("secret"))
    // The first hop itself would be an IP literal the core refuses, so it is reached by a name a stub resolver maps.
    const named = await workspaceWith(
      { allowPrivateNetwork: false },
      { addressPolicy: { allowPrivateNetwork: true }, resolve: async () => [{ address: "127.0.0.1", family: 4 }] }
    )
    const loop = await research(named, { action: "fetch", url: `http://public.test:${s.port}/to-loopback` })
    expect(loop.error?.code).toBe("EGRESS_DENIED")
    expect(loop.error?.details?.["reason"]).toBe("address")
    expect(loop.error?.details?.["redirects"]).toEqual([`http://public.test:${s.port}/to-loopback`])
    const meta = await research(named, { action: "fetch", url: `http://public.test:${s.port}/to-metadata` })
    expect(meta.error?.code).toBe("EGRESS_DENIED")
    expect(meta.error?.details?.["reason"]).toBe("metadata")
    expect(s.pages().map((request) => request.url)).toEqual(["/to-loopback", "/to-metadata"])
  })
})

describe("'checked on the address actually connected, so DNS rebinding cannot slip past'", () => {
  // The local resolver stub: the Node host takes the resolver its connector uses (NodeHostOptions.resolve); the
  // stub maps every name to 127.0.0.1, as a hostile DNS server would for a name that looks public. No /etc/hosts
  // entry and no DNS server is involved; the connector's lookup is the only resolution, so the address checked is
  // the address connected to.
  const toLoopback = async () => [{ address: "127.0.0.1", family: 4 as const }]

  it("a DNS name that resolves to 127.0.0.1 is refused with EGRESS_DENIED naming the address, and the server sees no request", async () => {
    const s = await server()
    s.route("/page", reply(PAGE))
    const ws = await workspaceWith({ allowPrivateNetwork: false }, { resolve: toLoopback })
    const result = await research(ws, { action: "fetch", url: `http://innocent.example:${s.port}/page` })
    expect(result.error?.code).toBe("EGRESS_DENIED")
    expect(result.error?.details).toMatchObject({
      reason: "address",
      address: "127.0.0.1",
      addressClass: "loopback",
      host: "innocent.example"
    })
    expect(result.error?.message).toContain("innocent.example resolves to 127.0.0.1")
    expect(s.seen).toEqual([])
  })

  it("the same name with allowPrivateNetwork on reaches the server: the stub resolver is what the connection used", async () => {
    const s = await server()
    s.route("/page", reply(PAGE))
    const ws = await workspaceWith({ allowPrivateNetwork: true }, { resolve: toLoopback })
    const result = await research(ws, { action: "fetch", url: `http://innocent.example:${s.port}/page` })
    expect(result.ok).toBe(true)
    expect(s.pages().map((request) => request.headers.host)).toEqual([`innocent.example:${s.port}`])
  })

  it("the system resolver: localhost resolves to a loopback address and is refused", async () => {
    const s = await server()
    const ws = await workspace({ allowPrivateNetwork: false })
    const result = await research(ws, { action: "fetch", url: `http://localhost:${s.port}/` })
    expect(result.error?.code).toBe("EGRESS_DENIED")
    expect(["127.0.0.1", "::1"]).toContain(result.error?.details?.["address"])
    expect(s.seen).toEqual([])
  })

  it("the connector's lookup drops refused addresses and keeps allowed ones; with none left it raises EgressDeniedError", async () => {
    const lookup = (addresses: Array<{ address: string; family: 4 | 6 }>) =>
      new Promise<{ error: unknown; result: unknown }>((resolve) =>
        guardedLookup({ allowPrivateNetwork: false }, async () => addresses)(
          "name.test",
          { all: true },
          (error, result) => resolve({ error, result })
        )
      )
    expect(
      (
        await lookup([
          { address: "10.0.0.1", family: 4 },
          { address: "93.184.216.34", family: 4 }
        ])
      ).result
    ).toEqual([{ address: "93.184.216.34", family: 4 }])
    const refused = await lookup([{ address: "169.254.169.254", family: 4 }])
    expect(refused.error).toBeInstanceOf(EgressDeniedError)
    expect((refused.error as EgressDeniedError).verdict.class).toBe("metadata")
  })

  it("the connector refuses an IP literal before connecting (undici's own path, outside the core's checks)", async () => {
    const s = await server()
    s.route("/page", reply(PAGE))
    const agent = makeGuardedAgent({ allowPrivateNetwork: false })
    const failure = await agent.request({ origin: s.origin, path: "/page", method: "GET" }).then(
      () => undefined,
      (error: unknown) => error
    )
    await agent.destroy()
    expect((failure as Error).name).toBe("EgressDeniedError")
    expect(s.seen).toEqual([])
  })
})

describe("'a response cap (setting maxFetchBytes, default 5 MB) and a timeout'", () => {
  it("maxFetchBytes defaults to 5 MB", async () => {
    const { defaultSettings } = await import("../../core/settings/settings.ts")
    expect(defaultSettings.maxFetchBytes).toBe(5_000_000)
  })

  it("a 50 MB body without Content-Length is cut at maxFetchBytes: RESPONSE_TOO_LARGE, and the connection is dropped long before 50 MB are sent", async () => {
    const s = await server()
    let written = 0
    let closedEarly = false
    s.route("/big", (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" })
      const chunk = Buffer.alloc(64 * 1024, 97)
      const total = 50 * 1024 * 1024
      const pump = () => {
        while (written < total) {
          written += chunk.length
          if (!res.write(chunk)) return void res.once("drain", pump)
        }
        res.end()
      }
      res.on("close", () => {
        if (written < total) closedEarly = true
      })
      pump()
    })
    const ws = await workspace({ maxFetchBytes: 1_000_000 })
    const result = await research(ws, { action: "fetch", url: `${s.origin}/big` })
    expect(result.error?.code).toBe("RESPONSE_TOO_LARGE")
    expect(result.error?.details).toMatchObject({ maxFetchBytes: 1_000_000, setting: "maxFetchBytes" })
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(closedEarly).toBe(true)
    expect(written).toBeLessThan(50 * 1024 * 1024)
  })

  it("a 50 MB Content-Length is refused before the body is read", async () => {
    const s = await server()
    s.route("/announced", (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-length": String(50 * 1024 * 1024) })
      res.write("a")
    })
    const ws = await workspace()
    const result = await research(ws, { action: "fetch", url: `${s.origin}/announced` })
    expect(result.error?.code).toBe("RESPONSE_TOO_LARGE")
    expect(result.error?.details?.["contentLength"]).toBe(50 * 1024 * 1024)
  })

  it("a slow-loris body (one byte every 100 ms, forever) ends with TIMEOUT at fetchTimeoutMs and the connection is closed", async () => {
    const s = await server()
    let closed = false
    s.route("/slow", (_req, res) => {
      res.writeHead(200, { "content-type": "text/html" })
      const timer = setInterval(() => res.write("a"), 100)
      res.on("close", () => {
        closed = true
        clearInterval(timer)
      })
    })
    const ws = await workspace({ fetchTimeoutMs: 1000 })
    const started = Date.now()
    const result = await research(ws, { action: "fetch", url: `${s.origin}/slow` })
    expect(result.error?.code).toBe("TIMEOUT")
    expect(result.error?.details?.["setting"]).toBe("fetchTimeoutMs")
    expect(Date.now() - started).toBeLessThan(10_000)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(closed).toBe(true)
  })
})

describe("'robots.txt honoured for fetch (cached per origin) with the refusal saying so'", () => {
  it("a disallowed path is EGRESS_DENIED with details.reason robots; the page is never requested; robots.txt is fetched once per origin", async () => {
    const s = await server()
    s.route("/robots.txt", reply("User-agent: *\nDisallow: /private\nAllow: /private/open\n", "text/plain"))
    s.route("/private/page", reply(PAGE))
    s.route("/private/open/page", reply(PAGE))
    s.route("/public", reply(PAGE))
    const ws = await workspace()
    const refused = await research(ws, { action: "fetch", url: `${s.origin}/private/page` })
    expect(refused.error?.code).toBe("EGRESS_DENIED")
    expect(refused.error?.details).toMatchObject({
      reason: "robots",
      robotsUrl: `${s.origin}/robots.txt`,
      rule: "Disallow: /private"
    })
    expect(refused.error?.message).toContain("robots.txt disallows")
    expect((await research(ws, { action: "fetch", url: `${s.origin}/private/open/page` })).ok).toBe(true)
    expect((await research(ws, { action: "fetch", url: `${s.origin}/public` })).ok).toBe(true)
    expect(s.seen.filter((request) => request.url === "/robots.txt")).toHaveLength(1)
    expect(s.pages().map((request) => request.url)).toEqual(["/private/open/page", "/public"])
  })

  it("a group for the toolkit's own token wins over *", async () => {
    const s = await server()
    s.route(
      "/robots.txt",
      reply("User-agent: *\nDisallow:\n\nUser-agent: agentic-workspace\nDisallow: /\n", "text/plain")
    )
    s.route("/page", reply(PAGE))
    const ws = await workspace()
    const result = await research(ws, { action: "fetch", url: `${s.origin}/page` })
    expect(result.error?.details?.["reason"]).toBe("robots")
    expect(s.pages()).toEqual([])
  })

  it("a redirect into a disallowed path on another origin is refused at that hop", async () => {
    const a = await server()
    const b = await server()
    b.route("/robots.txt", reply("User-agent: *\nDisallow: /\n", "text/plain"))
    b.route("/page", reply(PAGE))
    a.route("/go", redirect(`${b.origin}/page`))
    const ws = await workspace()
    const result = await research(ws, { action: "fetch", url: `${a.origin}/go` })
    expect(result.error?.details?.["reason"]).toBe("robots")
    expect(b.pages()).toEqual([])
  })

  it("no robots.txt (404) allows everything", async () => {
    const s = await server()
    s.route("/page", reply(PAGE))
    const ws = await workspace()
    expect((await research(ws, { action: "fetch", url: `${s.origin}/page` })).ok).toBe(true)
  })
})
