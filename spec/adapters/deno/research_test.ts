/**
 * workspace_research on the Deno host: the fetch client binding behind the same egress policy. A real
 * Deno.serve on 127.0.0.1 serves a page; the private-address rule refuses it (by IP literal and by the
 * name localhost) unless allowPrivateNetwork is on. Run by `deno test` from `npm test`.
 */
import { openDenoWorkspace } from "../../../adapters/deno/host.ts"

const assert = (condition: boolean, message: string) => {
  if (!condition) throw new Error(message)
}

const withServer = async (fn: (origin: string, seen: Array<string>) => Promise<void>) => {
  const seen: Array<string> = []
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const url = new URL(request.url)
    seen.push(url.pathname)
    if (url.pathname === "/page")
      return new Response(
        "<html><head><title>Deno page</title></head><body><main><p>hello from deno</p></main></body></html>",
        { headers: { "content-type": "text/html" } }
      )
    if (url.pathname === "/hop") return new Response(null, { status: 302, headers: { location: "/page" } })
    return new Response("not found", { status: 404 })
  })
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`, seen)
  } finally {
    await server.shutdown()
  }
}

const open = async (settings: Record<string, unknown>) => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "aw-deno-research-" }))
  const opened = await openDenoWorkspace(root, { enableWebResearch: true, permissionMode: 2, ...settings })
  if ("_tag" in opened) throw new Error(opened.reason)
  return {
    runtime: opened,
    dispose: async () => {
      await opened.dispose()
      await Deno.remove(root, { recursive: true })
    }
  }
}

Deno.test({
  name: "deno: fetch through the fetch client follows a redirect by hand and extracts the page (allowPrivateNetwork on)",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withServer(async (origin, seen) => {
      const ws = await open({ allowPrivateNetwork: true })
      try {
        const result = await ws.runtime.call("workspace_research", { action: "fetch", url: `${origin}/hop` })
        const data = result.data as Record<string, unknown>
        assert(result.ok, JSON.stringify(result.error))
        assert(
          data["url"] === `${origin}/page` && data["title"] === "Deno page" && data["text"] === "hello from deno",
          JSON.stringify(data)
        )
        assert(JSON.stringify(seen) === JSON.stringify(["/robots.txt", "/hop", "/page"]), JSON.stringify(seen))
      } finally {
        await ws.dispose()
      }
    })
})

Deno.test({
  name: "deno: 127.0.0.1 and localhost are EGRESS_DENIED with allowPrivateNetwork off, and the server sees nothing",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withServer(async (origin, seen) => {
      const ws = await open({ allowPrivateNetwork: false })
      try {
        for (const url of [`${origin}/page`, origin.replace("127.0.0.1", "localhost") + "/page"]) {
          const result = await ws.runtime.call("workspace_research", { action: "fetch", url })
          assert(!result.ok && result.error?.code === "EGRESS_DENIED", `${url}: ${JSON.stringify(result)}`)
        }
        assert(seen.length === 0, JSON.stringify(seen))
      } finally {
        await ws.dispose()
      }
    })
})
