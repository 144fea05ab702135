/**
 * A loopback HTTPS stand-in for the GitHub REST endpoints the Workspaces PR half calls through the real
 * `gh api` (gh 2.23 reaches an Enterprise host at https://HOST/api/v3/, trusting the test CA through
 * SSL_CERT_FILE; spec/vcs/ghServer.ts makes the certificates). It answers in GitHub's REST response shapes
 * (pulls, pulls/N, pulls/N/files, compare/A...B, pulls/N/merge) and records every request.
 */
import * as fs from "node:fs"
import * as https from "node:https"
import { makeCertificates } from "../vcs/ghServer.ts"

export const OWNER = "octo"
export const REPO = "widgets"

export interface RestFile {
  readonly filename: string
  readonly status: string
  readonly additions: number
  readonly deletions: number
  readonly patch?: string
  readonly previous_filename?: string
}

export interface RestPull {
  number: number
  title: string
  body: string | null
  state: "open" | "closed"
  draft: boolean
  merged: boolean
  merge_commit_sha: string | null
  user: { login: string }
  head: { ref: string; sha: string; repo: { full_name: string } }
  base: { ref: string; sha: string; repo: { full_name: string } }
  created_at: string
  updated_at: string
  /** merge base -> head (the source side). */
  files: Array<RestFile>
  /** merge base -> base tip (the target side). */
  targetFiles: Array<RestFile>
}

export interface RestRequest {
  readonly method: string
  readonly url: string
  readonly authorization: string | undefined
  readonly body: string
}

const sha = (n: number) => n.toString(16).padStart(40, "0")

/** Starts the stand-in on a free port of 127.0.0.1. `failNext` makes the next matching request fail (or hang up). */
export const startRestServer = async (dir: string, token: string) => {
  const certs = makeCertificates(dir)
  const requests: Array<RestRequest> = []
  const pulls: Array<RestPull> = []
  const faults: Array<{ method: string; pattern: RegExp; status: number | "hangup-after" }> = []
  let port = 0
  const host = () => `127.0.0.1:${port}`
  const apiPull = (pull: RestPull) => {
    const { files: _files, targetFiles: _target, ...rest } = pull
    return {
      ...rest,
      html_url: `https://${host()}/${OWNER}/${REPO}/pull/${pull.number}`,
      url: `https://${host()}/api/v3/repos/${OWNER}/${REPO}/pulls/${pull.number}`
    }
  }
  const send = (
    res: import("node:http").ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {}
  ) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers })
    res.end(JSON.stringify(body))
  }
  const page = <A>(items: ReadonlyArray<A>, url: URL) => {
    const perPage = Math.min(Number(url.searchParams.get("per_page") ?? "30"), 100)
    const pageNo = Number(url.searchParams.get("page") ?? "1")
    return items.slice((pageNo - 1) * perPage, pageNo * perPage)
  }
  const server = https.createServer({ key: certs.key, cert: certs.cert }, (req, res) => {
    let body = ""
    req.on("data", (chunk) => (body += chunk))
    req.on("end", () => {
      requests.push({ method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization, body })
      if (req.headers.authorization !== `token ${token}`)
        return send(res, 401, { message: "Bad credentials", documentation_url: "https://docs.github.com/rest" })
      const url = new URL(req.url ?? "/", `https://${host()}`)
      const fault = faults.findIndex((f) => f.method === req.method && f.pattern.test(url.pathname))
      const prefix = `/api/v3/repos/${OWNER}/${REPO}`
      const act = () => {
        if (url.pathname === `${prefix}/pulls` && req.method === "GET") {
          const state = url.searchParams.get("state") ?? "open"
          const head = url.searchParams.get("head")
          const base = url.searchParams.get("base")
          const listed = pulls
            .filter((pull) => state === "all" || pull.state === state)
            .filter((pull) => head === null || `${OWNER}:${pull.head.ref}` === head)
            .filter((pull) => base === null || pull.base.ref === base)
            .sort((a, b) => b.number - a.number)
          return send(res, 200, page(listed.map(apiPull), url))
        }
        if (url.pathname === `${prefix}/pulls` && req.method === "POST") {
          const input = JSON.parse(body) as {
            title?: string
            body?: string
            head?: string
            base?: string
            draft?: boolean
          }
          if (typeof input.title !== "string" || typeof input.head !== "string" || typeof input.base !== "string")
            return send(res, 422, { message: "Validation Failed" })
          if (
            pulls.some((pull) => pull.state === "open" && pull.head.ref === input.head && pull.base.ref === input.base)
          ) {
            return send(res, 422, {
              message: "Validation Failed",
              errors: [
                {
                  resource: "PullRequest",
                  code: "custom",
                  message: `A pull request already exists for ${OWNER}:${input.head}.`
                }
              ]
            })
          }
          const number = pulls.reduce((max, pull) => Math.max(max, pull.number), 0) + 1
          const now = new Date().toISOString()
          const pull: RestPull = {
            number,
            title: input.title,
            body: input.body ?? null,
            state: "open",
            draft: input.draft === true,
            merged: false,
            merge_commit_sha: null,
            user: { login: OWNER },
            head: { ref: input.head, sha: sha(number * 1000 + 1), repo: { full_name: `${OWNER}/${REPO}` } },
            base: { ref: input.base, sha: sha(number * 1000 + 2), repo: { full_name: `${OWNER}/${REPO}` } },
            created_at: now,
            updated_at: now,
            files: [],
            targetFiles: []
          }
          pulls.push(pull)
          return send(res, 201, apiPull(pull))
        }
        const one = new RegExp(`^${prefix}/pulls/(\\d+)(/files|/merge)?$`).exec(url.pathname)
        if (one !== null) {
          const pull = pulls.find((candidate) => candidate.number === Number(one[1]))
          if (pull === undefined)
            return send(res, 404, {
              message: "Not Found",
              documentation_url: "https://docs.github.com/rest/pulls/pulls#get-a-pull-request"
            })
          if (one[2] === "/files") return send(res, 200, page(pull.files, url))
          if (one[2] === "/merge" && req.method === "PUT") {
            const input = JSON.parse(body || "{}") as { sha?: string }
            if (pull.merged || pull.state !== "open")
              return send(res, 405, { message: "Pull Request is not mergeable" })
            if (input.sha !== undefined && input.sha !== pull.head.sha)
              return send(res, 409, { message: "Head branch was modified. Review and try the merge again." })
            pull.merged = true
            pull.state = "closed"
            pull.merge_commit_sha = sha(pull.number * 1000 + 3)
            return send(res, 200, {
              sha: pull.merge_commit_sha,
              merged: true,
              message: "Pull Request successfully merged"
            })
          }
          return send(res, 200, apiPull(pull))
        }
        const compare = new RegExp(`^${prefix}/compare/([0-9a-f]+)\\.\\.\\.([0-9a-f]+)$`).exec(url.pathname)
        if (compare !== null) {
          const pull = pulls.find((candidate) => candidate.base.sha === compare[1] && candidate.head.sha === compare[2])
          const reverse = pulls.find(
            (candidate) => candidate.head.sha === compare[1] && candidate.base.sha === compare[2]
          )
          if (pull === undefined && reverse === undefined) return send(res, 404, { message: "Not Found" })
          const files = pull !== undefined ? pull.files : reverse!.targetFiles
          return send(res, 200, { status: "diverged", merge_base_commit: { sha: sha(999_999) }, files })
        }
        return send(res, 404, { message: "Not Found" })
      }
      if (fault >= 0) {
        const [f] = faults.splice(fault, 1)
        if (f!.status === "hangup-after") {
          // The effect happens, then the connection drops: the client cannot know the outcome.
          const original = res.end.bind(res)
          res.end = (() => {
            req.socket.destroy()
            return res
          }) as never
          act()
          res.end = original
          return
        }
        return send(res, f!.status as number, { message: "Server Error" })
      }
      act()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  port = (server.address() as { port: number }).port
  return {
    host: host(),
    ca: certs.ca,
    requests,
    pulls,
    faults,
    sha,
    remoteUrl: `https://${host()}/${OWNER}/${REPO}.git`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

export const removeDir = (dir: string) => fs.rmSync(dir, { recursive: true, force: true })

/** The token the stand-in accepts (gh reads it as GH_ENTERPRISE_TOKEN); no output may ever carry it. */
export const SPEC_TOKEN = "ghp_workspacesSpecTokenNeverShown0123456789"

/**
 * Registers the suite hooks that start the stand-in, point the real gh at it (the test CA, the Enterprise
 * token of its host, a private GH_CONFIG_DIR) and restore the environment afterwards; requests, pulls and
 * faults are cleared before each test. `setEnv` changes more of gh's environment for one test.
 */
export const useRestServer = (hooks: {
  beforeAll: (fn: () => Promise<void>) => void
  afterAll: (fn: () => Promise<void>) => void
  beforeEach: (fn: () => void) => void
}) => {
  const saved: Record<string, string | undefined> = {}
  const setEnv = (values: Record<string, string | undefined>) => {
    for (const [key, value] of Object.entries(values)) {
      if (!(key in saved)) saved[key] = process.env[key]
      if (value === undefined) delete process.env[key]
      else process.env[key] = value
    }
  }
  const state: { server?: Awaited<ReturnType<typeof startRestServer>>; dir?: string } = {}
  hooks.beforeAll(async () => {
    const { makeTempDir } = await import("../support/workspace.ts")
    state.dir = await makeTempDir("aw-ws-gh-")
    state.server = await startRestServer(state.dir, SPEC_TOKEN)
    setEnv({
      SSL_CERT_FILE: state.server.ca,
      GH_ENTERPRISE_TOKEN: SPEC_TOKEN,
      GH_CONFIG_DIR: `${state.dir}/gh-config`,
      GH_HOST: undefined,
      GH_REPO: undefined,
      GH_TOKEN: undefined,
      GITHUB_TOKEN: undefined
    })
  })
  hooks.afterAll(async () => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key]
      else process.env[key] = value
    }
    await state.server?.close()
    if (state.dir !== undefined) removeDir(state.dir)
  })
  hooks.beforeEach(() => {
    state.server?.pulls.splice(0)
    state.server?.requests.splice(0)
    state.server?.faults.splice(0)
  })
  return {
    /** The running stand-in (inside a test). */
    server: () => {
      if (state.server === undefined) throw new Error("the REST stand-in is not started (use it inside a test)")
      return state.server
    },
    setEnv
  }
}

/** A pull request in the stand-in's shape, numbered `number`, with its head and base shas derived from it. */
export const restPull = (number: number, extra: Partial<RestPull> = {}): RestPull => ({
  number,
  title: `PR ${number}`,
  body: `Body of ${number}`,
  state: "open",
  draft: false,
  merged: false,
  merge_commit_sha: null,
  user: { login: "author" },
  head: { ref: `feature-${number}`, sha: sha(number * 10 + 1), repo: { full_name: `${OWNER}/${REPO}` } },
  base: { ref: "main", sha: sha(number * 10 + 2), repo: { full_name: `${OWNER}/${REPO}` } },
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-02T00:00:00Z",
  files: [],
  targetFiles: [],
  ...extra
})
