/** Helpers for the review specs: a Manual-mode workspace, the review server on it, real headless Chromium. */
import * as fs from "node:fs/promises"
import * as http from "node:http"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { chromium } from "playwright-core"
import { afterAll, afterEach, beforeAll } from "vitest"
import { startReview, type ReviewServer } from "../../adapters/review/server.ts"
import type { Envelope } from "../../core/protocol/envelope.ts"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"

export const CHROMIUM = "/usr/bin/chromium"

export const data = (envelope: Envelope) => envelope.data as Record<string, any>

/** Launches Debian's Chromium headless (no user namespace sandbox in CI containers: --no-sandbox). */
export const launch = (args: ReadonlyArray<string> = []): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu", ...args] })

/** A workspace with a review server, and whatever a test opened: closed by `close`. */
export interface Rig {
  readonly ws: TempWorkspace
  readonly server: ReviewServer
  readonly token: string
  readonly close: () => Promise<void>
}

export const TOKEN = "spec-review-token-0123456789abcdef"

export const rig = async (
  settings: Record<string, unknown> = { permissionMode: 0 },
  pollMs = 200,
  dir?: string
): Promise<Rig> => {
  const ws = await openWorkspace(settings, dir)
  const server = await startReview({ runtime: ws.runtime, port: 0, token: TOKEN, pollMs })
  return {
    ws,
    server,
    token: TOKEN,
    close: async () => {
      await server.close()
      await ws.dispose()
    }
  }
}

/**
 * What every review spec file shares: one headless Chromium for the file (launched before its tests,
 * closed after them) and the rigs its tests open (each closed after its test, passed or failed).
 */
export const reviewSuite = (args: ReadonlyArray<string> = []) => {
  let browser: Browser | undefined
  const open: Array<Rig> = []
  beforeAll(async () => {
    browser = await launch(args)
  })
  afterAll(async () => {
    await browser?.close()
  })
  afterEach(async () => {
    for (const opened of open.splice(0)) await opened.close()
  })
  return {
    browser: (): Browser => {
      if (browser === undefined) throw new Error("the suite's browser is not launched yet (use it inside a test)")
      return browser
    },
    rig: async (...args: Parameters<typeof rig>): Promise<Rig> => {
      const opened = await rig(...args)
      open.push(opened)
      return opened
    }
  }
}

/** A page that has visited the printed URL (so it holds the cookie) and finished its first render. */
export const openPage = async (context: BrowserContext, server: ReviewServer): Promise<Page> => {
  const page = await context.newPage()
  await page.goto(server.url)
  await page.waitForFunction(() => document.body.dataset["loaded"] !== undefined)
  return page
}

/** Waits for the page's next render after `since` (the SSE "changed" event, or a decision's reload). */
export const nextRender = async (page: Page, since: string | undefined) =>
  page.waitForFunction((before) => document.body.dataset["loaded"] !== before, since)

export const loadedAt = (page: Page) => page.evaluate(() => document.body.dataset["loaded"])

/** One raw HTTP request to the review server with exactly the headers given (no fetch defaults). */
export const raw = (
  port: number,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string }
) =>
  new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method: options.method ?? "GET",
        path: options.path ?? "/",
        headers: options.headers ?? {},
        setHost: false
      },
      (res) => {
        let body = ""
        res.setEncoding("utf8")
        res.on("data", (chunk) => (body += chunk))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }))
      }
    )
    req.on("error", reject)
    req.end(options.body)
  })

/** Stages a three-file edit in Manual mode through the registry. */
export const stageThreeFiles = async (ws: TempWorkspace) => {
  await ws.write("src/app.ts", "export const greet = (name: string) => {\n  return `hello ${name}`\n}\n")
  await ws.write("README.md", "# Demo\n\nOld text.\n")
  await ws.write("config.json", '{\n  "port": 8080\n}\n')
  const staged = await ws.call("workspace_edit", {
    action: "apply",
    operations: [
      {
        type: "replace",
        path: "src/app.ts",
        search: "return `hello ${name}`",
        replacement: "// greet politely\n  return `hello, ${name}!`"
      },
      { type: "replace", path: "README.md", search: "Old text.", replacement: "New text, reviewed in the browser." },
      { type: "replace", path: "config.json", search: "8080", replacement: "9090" }
    ]
  })
  return staged
}

/** Every file under a directory, read as text (to look for the token). */
export const allText = async (dir: string): Promise<string> => {
  const out: Array<string> = []
  const walk = async (at: string) => {
    for (const entry of await fs.readdir(at, { withFileTypes: true })) {
      const full = `${at}/${entry.name}`
      if (entry.isDirectory()) await walk(full)
      else if (entry.isFile()) out.push(await fs.readFile(full, "latin1"))
    }
  }
  await walk(dir)
  return out.join("\n")
}
