/**
 * A loopback HTTPS stand-in for the GitHub endpoints gh 2.23 calls (REST under /api/v3/, GraphQL at
 * /api/graphql, as for a GitHub Enterprise host), with a CA generated at test time by openssl and trusted
 * through SSL_CERT_FILE. It answers in GitHub's response shapes and records every request.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as https from "node:https"
import * as path from "node:path"

export interface GhRequest {
  readonly method: string
  readonly url: string
  readonly authorization: string | undefined
  readonly accept: string | undefined
  readonly operation: string | undefined
  readonly variables: Record<string, any> | undefined
  readonly body: string
}

export interface GhState {
  issues: Array<{
    number: number
    title: string
    body: string
    state: string
    url: string
    author: { login: string }
    labels: { nodes: Array<{ name: string }> }
    createdAt: string
    updatedAt: string
  }>
  pulls: Array<{
    number: number
    title: string
    body: string
    state: string
    url: string
    author: { login: string }
    headRefName: string
    baseRefName: string
    isDraft: boolean
    createdAt: string
    diff: string
  }>
}

/** Makes a CA and a server certificate for 127.0.0.1 in `dir` (openssl, at test time). */
export const makeCertificates = (dir: string) => {
  const run = (...args: Array<string>) => execFileSync("openssl", args, { cwd: dir, stdio: "ignore" })
  run(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "1",
    "-subj",
    "/CN=agentic-workspace spec CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=keyCertSign,cRLSign"
  )
  run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1")
  fs.writeFileSync(
    path.join(dir, "ext.cnf"),
    "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
  )
  run(
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "server.pem",
    "-days",
    "1",
    "-extfile",
    "ext.cnf"
  )
  return {
    ca: path.join(dir, "ca.pem"),
    key: fs.readFileSync(path.join(dir, "server.key")),
    cert: fs.readFileSync(path.join(dir, "server.pem"))
  }
}

const OWNER = "octo"
const REPO = "demo"

/** Starts the stand-in; port 443 when it may bind it (gh matches remotes by host without a port), else a free port. */
export const startGhServer = async (dir: string, token: string) => {
  const certs = makeCertificates(dir)
  const requests: Array<GhRequest> = []
  const state: GhState = { issues: [], pulls: [] }
  let host = "127.0.0.1"
  const base = () => `https://${host}/${OWNER}/${REPO}`
  const repository = () => ({
    id: "R_demo",
    name: REPO,
    owner: { login: OWNER },
    nameWithOwner: `${OWNER}/${REPO}`,
    url: base(),
    hasIssuesEnabled: true,
    viewerPermission: "ADMIN",
    defaultBranchRef: { name: "main", target: { oid: "0".repeat(40) } },
    isPrivate: false,
    parent: null,
    mergeCommitAllowed: true,
    rebaseMergeAllowed: true,
    squashMergeAllowed: true
  })
  const graphql = (_operation: string | undefined, query: string, variables: Record<string, any>): unknown => {
    const typeFields = /__type\(name: \\?"(\w+)\\?"\)/.exec(query)
    if (typeFields !== null) {
      const names =
        typeFields[1] === "Issue"
          ? [
              "number",
              "title",
              "body",
              "state",
              "url",
              "author",
              "labels",
              "createdAt",
              "updatedAt",
              "id",
              "closed",
              "assignees",
              "comments",
              "milestone",
              "projectCards",
              "reactionGroups",
              "stateReason"
            ]
          : [
              "number",
              "title",
              "body",
              "state",
              "url",
              "author",
              "headRefName",
              "baseRefName",
              "isDraft",
              "createdAt",
              "updatedAt",
              "id",
              "closed",
              "labels",
              "assignees",
              "headRepositoryOwner",
              "headRepository",
              "isCrossRepository",
              "mergeable",
              "additions",
              "deletions",
              "reviewDecision"
            ]
      return { data: { [typeFields[1]!]: { fields: names.map((name) => ({ name })) } } }
    }
    if (/viewer\s*\{\s*login/.test(query) && !/repository/.test(query)) return { data: { viewer: { login: "octo" } } }
    if (/mutation IssueCreate|createIssue/.test(query)) {
      const input = variables["input"] ?? {}
      const number = state.issues.length + state.pulls.length + 1
      const issue = {
        number,
        title: input.title,
        body: input.body ?? "",
        state: "OPEN",
        url: `${base()}/issues/${number}`,
        author: { __typename: "User", id: "U_octo", name: "Octo", login: "octo" },
        labels: { nodes: [] },
        createdAt: new Date().toISOString(),
        updatedAt: new Date().toISOString()
      }
      state.issues.push(issue)
      return { data: { createIssue: { issue: { id: `I_${number}`, url: issue.url, number } } } }
    }
    if (/createPullRequest/.test(query)) {
      const input = variables["input"] ?? {}
      const number = state.issues.length + state.pulls.length + 1
      const pull = {
        number,
        title: input.title,
        body: input.body ?? "",
        state: "OPEN",
        url: `${base()}/pull/${number}`,
        author: { __typename: "User", id: "U_octo", name: "Octo", login: "octo" },
        headRefName: input.headRefName,
        baseRefName: input.baseRefName,
        isDraft: input.draft === true,
        createdAt: new Date().toISOString(),
        diff: ""
      }
      state.pulls.push(pull)
      return { data: { createPullRequest: { pullRequest: { id: `PR_${number}`, url: pull.url, number } } } }
    }
    if (/issues\(/.test(query) && /repository\(/.test(query)) {
      const nodes = state.issues.map((issue) => ({
        ...issue,
        labels: { nodes: issue.labels.nodes, totalCount: issue.labels.nodes.length }
      }))
      return {
        data: {
          repository: {
            hasIssuesEnabled: true,
            issues: { totalCount: nodes.length, nodes, pageInfo: { hasNextPage: false, endCursor: "" } }
          }
        }
      }
    }
    if (/pullRequests\(/.test(query) && /repository\(/.test(query)) {
      const wanted = variables["number"]
      const nodes = state.pulls
        .filter((pull) => wanted === undefined || pull.number === wanted)
        .filter((pull) => variables["headRefName"] === undefined || pull.headRefName === variables["headRefName"])
        .map(({ diff: _diff, ...pull }) => ({
          ...pull,
          headRepositoryOwner: { login: OWNER },
          headRepository: { name: REPO },
          isCrossRepository: false
        }))
      return {
        data: {
          repository: {
            pullRequests: {
              totalCount: nodes.length,
              nodes,
              edges: nodes.map((node) => ({ node })),
              pageInfo: { hasNextPage: false, endCursor: "" }
            }
          }
        }
      }
    }
    if (/pullRequest\(number/.test(query)) {
      const pull = state.pulls.find(
        (candidate) => candidate.number === variables["pr_number"] || candidate.number === variables["number"]
      )
      if (pull === undefined)
        return {
          data: { repository: { pullRequest: null } },
          errors: [{ type: "NOT_FOUND", message: "Could not resolve to a PullRequest" }]
        }
      const { diff: _diff, ...rest } = pull
      return {
        data: {
          repository: {
            pullRequest: {
              ...rest,
              id: `PR_${pull.number}`,
              headRepositoryOwner: { login: OWNER },
              headRepository: { name: REPO },
              isCrossRepository: false
            }
          }
        }
      }
    }
    if (/repository\(/.test(query)) return { data: { repository: repository(), viewer: { login: "octo" } } }
    return { data: {} }
  }
  const server = https.createServer({ key: certs.key, cert: certs.cert }, (req, res) => {
    let body = ""
    req.on("data", (chunk) => (body += chunk))
    req.on("end", () => {
      const parsed =
        req.url === "/api/graphql"
          ? (JSON.parse(body) as { query: string; variables?: Record<string, any> })
          : undefined
      const operation = parsed === undefined ? undefined : /(?:query|mutation)\s+(\w+)/.exec(parsed.query)?.[1]
      requests.push({
        method: req.method ?? "",
        url: req.url ?? "",
        authorization: req.headers.authorization,
        accept: req.headers.accept,
        operation,
        variables: parsed?.variables,
        body
      })
      if (req.headers.authorization !== `token ${token}`) {
        res.writeHead(401, { "content-type": "application/json" })
        res.end(JSON.stringify({ message: "Bad credentials" }))
        return
      }
      res.setHeader("x-oauth-scopes", "repo, read:org, gist")
      if (parsed !== undefined) {
        res.setHeader("content-type", "application/json")
        res.end(JSON.stringify(graphql(operation, parsed.query, parsed.variables ?? {})))
        return
      }
      const pullDiff = /^\/api\/v3\/repos\/[^/]+\/[^/]+\/pulls\/(\d+)/.exec(req.url ?? "")
      if (pullDiff !== null) {
        const pull = state.pulls.find((candidate) => candidate.number === Number(pullDiff[1]))
        if (pull === undefined) {
          res.writeHead(404, { "content-type": "application/json" })
          res.end(JSON.stringify({ message: "Not Found" }))
          return
        }
        res.setHeader("content-type", "text/plain; charset=utf-8")
        res.end(pull.diff)
        return
      }
      res.setHeader("content-type", "application/json")
      if ((req.url ?? "").startsWith("/api/v3/user")) res.end(JSON.stringify({ login: "octo" }))
      else res.end(JSON.stringify({}))
    })
  })
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject)
      server.listen(port, "127.0.0.1", () => resolve((server.address() as { port: number }).port))
    })
  let port: number
  try {
    port = await listen(443)
  } catch {
    port = await listen(0)
    host = `127.0.0.1:${port}`
  }
  return {
    host,
    port,
    ca: certs.ca,
    requests,
    state,
    /** The remote URL gh maps to this host's octo/demo. */
    remoteUrl: `https://127.0.0.1${port === 443 ? "" : `:${port}`}/${OWNER}/${REPO}.git`,
    /** Extra env when gh cannot infer the repository from a remote with a port (only on a port other than 443). */
    repoEnv: (port === 443 ? {} : { GH_REPO: `${host}/${OWNER}/${REPO}` }) as Record<string, string>,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
