/**
 * The GitHub side of the Workspaces integration: which repository a working copy's pull requests live in,
 * whether gh is authenticated for its host, and GitHub's REST API through the real `gh api` (gh keeps the
 * credentials; nothing here sees or returns a token). docs/WORKSPACES.md "Pull requests".
 */
import * as Effect from "effect/Effect"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import type { ExecResult } from "../../services/Processes.ts"
import type { ReadContext, ToolContext } from "../Tool.ts"
import { type Gh, type Git, openGh } from "../../exec/git.ts"

/** A GitHub repository: the host gh talks to (with a port when the remote URL has one), owner and name. */
export interface GithubRepo {
  readonly host: string
  readonly owner: string
  readonly repo: string
  /** The remote it was read from. */
  readonly remote: string
}

/**
 * Parses a remote URL into host/owner/repo: https://[user[:pass]@]host[:port]/owner/repo[.git],
 * ssh://[user@]host[:port]/owner/repo[.git] (the port of ssh is not gh's), user@host:owner/repo[.git].
 * Undefined for anything else (a local path, a file:// URL, a deeper path).
 */
export const parseGithubUrl = (url: string): Omit<GithubRepo, "remote"> | undefined => {
  const name = /^[A-Za-z0-9_.-]+$/
  const split = (host: string, path: string) => {
    const parts = path
      .replace(/\/+$/, "")
      .replace(/\.git$/, "")
      .split("/")
    if (parts.length !== 2 || !name.test(parts[0]!) || !name.test(parts[1]!) || host === "") return undefined
    return { host: host.toLowerCase(), owner: parts[0]!, repo: parts[1]! }
  }
  const web = /^https?:\/\/(?:[^@/]*@)?([^/:]+(?::\d+)?)\/(.+)$/i.exec(url)
  if (web !== null) return split(web[1]!, web[2]!)
  const ssh = /^ssh:\/\/(?:[^@/]*@)?([^/:]+)(?::\d+)?\/(.+)$/i.exec(url)
  if (ssh !== null) return split(ssh[1]!, ssh[2]!)
  const scp = /^(?:[^@/:]+@)?([^/:]+):(?!\/)(.+)$/.exec(url)
  if (scp !== null && !url.includes("://")) return split(scp[1]!, scp[2]!)
  return undefined
}

/**
 * The repository PRs are read from and opened in: the remote `upstream` when it names a GitHub repository
 * (a fork checkout resolves its upstream scope), else `origin`, else the first remote that does.
 */
export const githubRepoOf = (git: Git, names: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const order = [
      ...names.filter((n) => n === "upstream"),
      ...names.filter((n) => n === "origin"),
      ...names.filter((n) => n !== "upstream" && n !== "origin")
    ]
    for (const remote of order) {
      const read = yield* git.exec(["config", "--get", `remote.${remote}.url`])
      const url = read.exitCode === 0 ? read.stdout.trim() : ""
      const parsed = parseGithubUrl(url)
      if (parsed !== undefined) return { ...parsed, remote } satisfies GithubRepo as GithubRepo
    }
    return undefined
  })

/** The gh of the repository's host, when gh is allowed, on PATH, and has a token for that host (gh auth token: no network). */
export const authenticatedGh = (git: Git, repo: GithubRepo) =>
  Effect.gen(function* () {
    const gh = yield* openGh(git)
    const token = yield* gh.exec(["auth", "token", "--hostname", repo.host], { maxOutputBytes: 4096 })
    return token.exitCode === 0 && token.stdout.trim() !== "" ? gh : undefined
  }).pipe(Effect.catchAll(() => Effect.succeed(undefined as Gh | undefined)))

/** One REST answer: the HTTP status (undefined when no answer came: the outcome is not known) and the body. */
export interface RestAnswer {
  readonly status: number | undefined
  readonly json: unknown
  /** gh's message when there was no HTTP answer (redacted). */
  readonly transport?: string
}

/** Parses the output of `gh api -i`: the status line, headers, a blank line, the body. */
export const parseIncluded = (stdout: string): { status: number; body: string } | undefined => {
  const status = /^HTTP\/[\d.]+ (\d{3})/.exec(stdout)
  if (status === null) return undefined
  const at = stdout.indexOf("\r\n\r\n")
  return { status: Number(status[1]), body: at < 0 ? "" : stdout.slice(at + 4) }
}

const MAX_REST_BYTES = 32 * 1024 * 1024

/** Parses what `gh api -i` printed into a REST answer (no HTTP answer: the status is undefined). */
const restAnswer = (ran: ExecResult): RestAnswer => {
  const parsed = parseIncluded(ran.stdout)
  if (parsed === undefined)
    return { status: undefined, json: undefined, transport: redactText(ran.stderr.trim()).slice(0, 300) }
  let json: unknown
  try {
    json = parsed.body === "" ? undefined : JSON.parse(parsed.body)
  } catch {
    json = undefined
  }
  return { status: parsed.status, json }
}

/** Reads GitHub's REST API on the repository's host through `gh api --method GET` (GH_HOST names the host, with its port). */
export const restGet = (gh: Gh, repo: GithubRepo, path: string): Effect.Effect<RestAnswer, ToolError, ReadContext> =>
  Effect.map(
    gh.exec(["api", "-i", "--method", "GET", "-H", "Accept: application/vnd.github+json", path], {
      env: { GH_HOST: repo.host },
      maxOutputBytes: MAX_REST_BYTES
    }),
    restAnswer
  )

/** Changes something through GitHub's REST API (an interpreter's write: POST or PUT with a JSON body). */
export const restWrite = (
  gh: Gh,
  repo: GithubRepo,
  method: "POST" | "PUT",
  path: string,
  body: unknown
): Effect.Effect<RestAnswer, ToolError, ToolContext> =>
  Effect.map(
    gh.execWrite(["api", "-i", "--method", method, "-H", "Accept: application/vnd.github+json", path, "--input", "-"], {
      env: { GH_HOST: repo.host },
      maxOutputBytes: MAX_REST_BYTES,
      stdin: JSON.stringify(body)
    }),
    restAnswer
  )

/** `user:pass@` and GitHub tokens out of a message. */
export const redactText = (text: string): string =>
  text
    .replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, "$1")
    .replace(/\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})\b/g, "[redacted]")

/** A REST failure as the model sees it: NOT_FOUND for 404, VCS_FAILED otherwise, GitHub's message included. */
export const restError = (what: string, answer: RestAnswer): ToolError => {
  const message =
    typeof (answer.json as { message?: unknown } | undefined)?.message === "string"
      ? redactText((answer.json as { message: string }).message).slice(0, 300)
      : ""
  if (answer.status === 404)
    return toolError(
      "NOT_FOUND",
      `${what}: GitHub answered 404 Not Found; check the pull request number (read the pull_requests view).`,
      { status: 404 }
    )
  if (answer.status === undefined)
    return toolError(
      "VCS_FAILED",
      `${what}: GitHub did not answer (${answer.transport ?? "no response"}); read again later.`,
      {}
    )
  return toolError(
    "VCS_FAILED",
    `${what}: GitHub answered HTTP ${answer.status}${message === "" ? "" : ` (${message})`}.`,
    { status: answer.status }
  )
}

export const repoPath = (repo: GithubRepo) => `repos/${repo.owner}/${repo.repo}`
