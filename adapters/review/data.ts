/**
 * What the review page shows and how it decides: the pending records (each rendered from its typed
 * prompt, with its full diff read from the transaction's changes.diff), the plans, the `changes`
 * listing as a timeline, and the one decision the page may make: exactly the record it showed.
 *
 * A record is identified to the page by its id, its operation hash and its `version` (SHA-256 of every
 * field of the record but its MAC): a decision is refused when any of the three no longer matches the
 * stored record, so a record that changed, expired, was superseded or was decided elsewhere after the
 * page loaded is never decided by a click on its old card.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { loadRecords, recordPayload, updateRecords } from "../../core/gate/gate.ts"
import { sha256Text } from "../../core/gate/hash.ts"
import { applyCommand, type DecisionOutcome } from "../../core/gate/preprocess.ts"
import { type ApprovalRecord, EXPIRY_MS } from "../../core/gate/records.ts"
import { toolError, type ToolError } from "../../core/protocol/errors.ts"
import type { WorkspaceRuntime } from "../../core/runtime.ts"
import { StateStore } from "../../core/store/StateStore.ts"
import { readHostState } from "../hostState.ts"
import { TransactionRecordSchema } from "../../core/tools/edit/record.ts"
import { loadProject } from "../../core/tools/research/load.ts"
import { BoardSchema } from "../../core/tools/tasks/board.ts"
import { LOG_FORMAT, parseLog } from "../../core/tools/vcs/parse.ts"
import { openGit } from "../../core/exec/git.ts"
import { defined } from "../../core/text/defined.ts"

/** A full diff larger than this is cut (the page then says so and names the file that has all of it). */
export const MAX_DIFF_CHARS = 4 * 1024 * 1024
/** A push card lists at most this many commits of each side (and says when there are more). */
export const MAX_PUSH_COMMITS = 100
/** A research entry of the timeline lists at most this many of its sources. */
export const MAX_RESEARCH_SOURCES = 30
/** A job tail sent to the page holds at most this many bytes of each log. */
export const TAIL_BYTES = 64 * 1024

/** The version the page echoes back with a decision: SHA-256 of the record without its MAC. */
export const recordVersion = (record: ApprovalRecord): Effect.Effect<string> => sha256Text(recordPayload(record))

/** One file a transaction touches, as transaction.json records it. */
export interface TransactionFile {
  readonly path: string
  readonly change: string
  readonly destructive?: boolean
}

/** One commit as a push card lists it. */
export interface CommitLine {
  readonly sha: string
  readonly subject: string
}

/**
 * What a push moves, from its bound ref move `remote refs/heads/B OLD -> NEW`: the commits to be pushed
 * (reachable from NEW and not from OLD; for a new branch, not from any of the remote's tracking refs) and,
 * when OLD is not an ancestor of NEW (a force push), the commits the remote loses (reachable from OLD and
 * not from NEW). Both sets follow from the two SHAs the approval binds, so the list shows exactly what
 * the approved push sends.
 */
export interface PushCommits {
  readonly remote: string
  readonly branch: string
  readonly from: string | null
  readonly to: string
  readonly pushed: ReadonlyArray<CommitLine>
  readonly pushedMore: boolean
  readonly dropped: ReadonlyArray<CommitLine>
  readonly droppedMore: boolean
  /** Why the list could not be read (git failed); the ref move is still shown. */
  readonly error?: string
}

/** One research project of the timeline, with its sources. */
export interface ResearchEntry {
  readonly id: string
  readonly title: string
  readonly question: string
  readonly status: string
  readonly updatedAt: string
  readonly sources: ReadonlyArray<{
    readonly id: string
    readonly url: string
    readonly title: string
    readonly fetchedAt: string
  }>
  readonly sourceCount: number
}

/** One card of the page. */
export interface ReviewCard {
  readonly record: ApprovalRecord
  readonly version: string
  readonly expiresAt: string
  /** transactions: the full unified diff (cut at MAX_DIFF_CHARS) and the files with their change. */
  readonly diff?: string
  readonly diffCut?: boolean
  readonly diffPath?: string
  readonly files?: ReadonlyArray<TransactionFile>
  /** Why the operation is destructive, as the transaction's review names it. */
  readonly destructiveReasons?: ReadonlyArray<string>
  /** plans: the markdown of plan.md. */
  readonly markdown?: string
  /** vcs pushes: the commits the push sends (and those a force push discards). */
  readonly push?: PushCommits
  /** A record behind the card that does not decode: the IO_ERROR message naming the file and the repair. */
  readonly problem?: string
}

/** Everything the page draws. */
export interface ReviewState {
  readonly root: string
  readonly mode: 0 | 1 | 2
  /**
   * Whose mode `mode` is: "server" when .agentic/host.json records a server that still runs (its mode, which
   * staged the records), "page" when none does (the review's own settings, which staged nothing).
   */
  readonly modeOf: "server" | "page"
  readonly now: string
  readonly pending: ReadonlyArray<ReviewCard>
  readonly plans: ReadonlyArray<ReviewCard>
  readonly changes: Record<string, unknown>
  readonly boards: ReadonlyArray<TaskBoard>
  /** The subject of each commit the vcs entries of the changes listing name (by full SHA). */
  readonly subjects: Record<string, string>
  /** The research projects of the changes listing, each with its sources (newest first). */
  readonly research: ReadonlyArray<ResearchEntry>
  /** What a command card is matched against: the allowlist, the sandbox setting, command network. */
  readonly policy: {
    readonly executableAllowlist: ReadonlyArray<string>
    readonly commandSandbox: string
    readonly allowCommandNetwork: boolean
    readonly allowDestructiveEdits: boolean
  }
}

/** A task board as drawn: tasks and the tasks each depends on. */
export interface TaskBoard {
  readonly id: string
  readonly title: string
  readonly tasks: ReadonlyArray<{
    readonly id: string
    readonly title: string
    readonly status: string
    readonly dependsOn: ReadonlyArray<string>
  }>
  /** The board's state.json does not decode: the IO_ERROR message naming the file and the repair. */
  readonly problem?: string
}

const SAFE_ID = /^[A-Za-z]+_[A-Za-z0-9]+$/

const PUSH_REF = /^(\S+) refs\/heads\/(\S+) ([0-9a-f]{40,64}|\(new\)) -> ([0-9a-f]{40,64})$/

const pushCommits = (prompt: {
  readonly argv: ReadonlyArray<string>
  readonly cwd: string
  readonly refs: ReadonlyArray<string>
}) =>
  Effect.gen(function* () {
    const move = prompt.refs.length === 1 ? PUSH_REF.exec(prompt.refs[0]!) : null
    if (move === null || !prompt.argv.includes("push")) return undefined
    const [, remote, branch, old, to] = move as unknown as [string, string, string, string, string]
    const from = old === "(new)" ? null : old
    const base = { remote, branch, from, to }
    const listed = Effect.gen(function* () {
      const git = yield* openGit(prompt.cwd === "" ? undefined : prompt.cwd)
      const log = (args: ReadonlyArray<string>) =>
        Effect.map(
          git.must(["log", "--no-color", "-z", LOG_FORMAT, `--max-count=${MAX_PUSH_COMMITS + 1}`, ...args, "--"]),
          (text) => parseLog(text).map((commit) => ({ sha: commit.hash, subject: commit.subject }))
        )
      const pushed = yield* log([to, "--not", from ?? `--remotes=${remote}`])
      const dropped = from === null ? [] : yield* log([from, "--not", to])
      return {
        ...base,
        pushed: pushed.slice(0, MAX_PUSH_COMMITS),
        pushedMore: pushed.length > MAX_PUSH_COMMITS,
        dropped: dropped.slice(0, MAX_PUSH_COMMITS),
        droppedMore: dropped.length > MAX_PUSH_COMMITS
      } satisfies PushCommits
    })
    return yield* Effect.catchAll(listed, (error) =>
      Effect.succeed({
        ...base,
        pushed: [],
        pushedMore: false,
        dropped: [],
        droppedMore: false,
        error: error.message
      } satisfies PushCommits)
    )
  })

/** The subjects of the commits the vcs history names, read with one git log per repository directory. */
const subjectsOf = (changes: Record<string, unknown>) =>
  Effect.gen(function* () {
    const entries = Array.isArray(changes["vcs"]) ? (changes["vcs"] as ReadonlyArray<Record<string, unknown>>) : []
    const byCwd = new Map<string, Set<string>>()
    for (const entry of entries.slice(0, 50)) {
      const commit = entry["commit"]
      const cwd = typeof entry["cwd"] === "string" ? (entry["cwd"] as string) : ""
      if (typeof commit !== "string" || !/^[0-9a-f]{40,64}$/.test(commit)) continue
      byCwd.set(cwd, (byCwd.get(cwd) ?? new Set()).add(commit))
    }
    const subjects: Record<string, string> = {}
    for (const [cwd, commits] of byCwd) {
      const read = Effect.gen(function* () {
        const git = yield* openGit(cwd === "" ? undefined : cwd)
        return parseLog(
          yield* git.must([
            "log",
            "--no-color",
            "-z",
            LOG_FORMAT,
            "--no-walk=unsorted",
            "--ignore-missing",
            ...commits,
            "--"
          ])
        )
      })
      // A commit gone since (amended away and pruned) or a repository removed leaves its entry without a subject.
      for (const commit of yield* Effect.orElseSucceed(read, () => [])) subjects[commit.hash] = commit.subject
    }
    return subjects
  })

const researchOf = (changes: Record<string, unknown>) =>
  Effect.gen(function* () {
    const listed = Array.isArray(changes["researchProjects"])
      ? (changes["researchProjects"] as ReadonlyArray<Record<string, unknown>>)
      : []
    const out: Array<ResearchEntry> = []
    for (const entry of listed.slice(0, 20)) {
      const id = entry["researchId"]
      if (typeof id !== "string" || !SAFE_ID.test(id)) continue
      const project = yield* Effect.either(loadProject(id))
      if (project._tag === "Left") continue
      const { right } = project
      out.push({
        id,
        title: right.title,
        question: right.question,
        status: right.status,
        updatedAt: right.updatedAt,
        sources: right.sources
          .slice(0, MAX_RESEARCH_SOURCES)
          .map((source) => ({ id: source.id, url: source.url, title: source.title, fetchedAt: source.fetchedAt })),
        sourceCount: right.sources.length
      })
    }
    return out
  })

const cardOf = (record: ApprovalRecord) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const read = (rel: string) => Effect.orElseSucceed(store.readText(rel), () => undefined)
    const version = yield* recordVersion(record)
    const expiresAt = new Date(Date.parse(record.createdAt) + EXPIRY_MS).toISOString()
    if (record.kind === "plan") {
      const markdown = SAFE_ID.test(record.id) ? yield* read(`plans/${record.id}/plan.md`) : undefined
      return { record, version, expiresAt, ...defined({ markdown }) } satisfies ReviewCard
    }
    if (record.kind === "vcs" && record.prompt?._tag === "vcs") {
      const push = yield* pushCommits(record.prompt)
      return { record, version, expiresAt, ...defined({ push }) } satisfies ReviewCard
    }
    const tx = record.resume?.arguments["transaction_id"]
    if (record.kind !== "transaction" || typeof tx !== "string" || !SAFE_ID.test(tx))
      return { record, version, expiresAt } satisfies ReviewCard
    // Decoded against its Schema (core/tools/edit/record.ts): one that does not decode is named on the card.
    const decoded = yield* Effect.either(store.readJson(`transactions/${tx}/transaction.json`, TransactionRecordSchema))
    const transaction = Either.getOrUndefined(decoded)
    const files: Array<TransactionFile> = (transaction?.files ?? []).map((file) => ({
      path: file.path,
      change: file.change
    }))
    const whole = yield* read(`transactions/${tx}/changes.diff`)
    const diff = whole ?? (record.prompt?._tag === "transaction" ? record.prompt.diff : undefined)
    // What makes it destructive, named: the transaction's own reasons (operation, path, the alternative).
    const reasons = (transaction?.destructive ?? [])
      .map(
        (reason) =>
          `${reason.operation}${typeof reason.path === "string" ? ` ${reason.path}` : ""}${typeof reason.alternative === "string" ? ` (non-destructive alternative: ${reason.alternative})` : ""}`
      )
      .slice(0, 50)
    return {
      record,
      version,
      expiresAt,
      ...(diff === undefined ? {} : { diff: diff.slice(0, MAX_DIFF_CHARS), diffCut: diff.length > MAX_DIFF_CHARS }),
      diffPath: store.path(`transactions/${tx}/changes.diff`),
      files,
      ...(reasons.length > 0 ? { destructiveReasons: reasons } : {}),
      ...(Either.isLeft(decoded) ? { problem: decoded.left.message } : {})
    } satisfies ReviewCard
  })

const boardsOf = (changes: Record<string, unknown>) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const listed = Array.isArray(changes["taskBoards"])
      ? (changes["taskBoards"] as ReadonlyArray<Record<string, unknown>>)
      : []
    const boards: Array<TaskBoard> = []
    for (const entry of listed.slice(0, 20)) {
      const id = entry["id"] ?? entry["boardId"]
      if (typeof id !== "string" || !SAFE_ID.test(id)) continue
      // Decoded against its Schema (core/tools/tasks/board.ts): one that does not decode is named on the board.
      const decoded = yield* Effect.either(store.readJson(`tasks/${id}/state.json`, BoardSchema))
      const board = Either.getOrUndefined(decoded)
      boards.push({
        id,
        title: board?.title ?? (typeof entry["title"] === "string" ? (entry["title"] as string) : id),
        tasks: (board?.items ?? []).slice(0, 200).map((item) => ({
          id: item.id,
          title: item.text,
          status: item.status,
          dependsOn: item.depends_on
        })),
        ...(Either.isLeft(decoded) ? { problem: decoded.left.message } : {})
      })
    }
    return boards
  })

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as { code?: string }).code === "EPERM"
  }
}

/** The page's state, read fresh (nothing is written). */
export const reviewState = async (runtime: WorkspaceRuntime): Promise<ReviewState> => {
  const listing = await runtime.call("workspace_inspect", { action: "changes" })
  const server = await readHostState(runtime)
  const serverMode = server?.pid !== undefined && isRunning(server.pid) ? server.settings.permissionMode : undefined
  const changes =
    listing.ok && listing.data !== null && typeof listing.data === "object"
      ? (listing.data as Record<string, unknown>)
      : {}
  return runtime.run(
    Effect.gen(function* () {
      const records = yield* loadRecords
      const pending = yield* Effect.forEach(
        records.filter((record) => record.kind !== "plan" && record.status === "pending"),
        cardOf
      )
      const plans = yield* Effect.forEach(
        records.filter(
          (record) => record.kind === "plan" && (record.status === "pending" || record.status === "approved")
        ),
        cardOf
      )
      return {
        root: runtime.info.root,
        mode: serverMode ?? runtime.settings.permissionMode,
        modeOf: serverMode === undefined ? "page" : "server",
        now: new Date().toISOString(),
        pending,
        plans,
        changes,
        boards: yield* boardsOf(changes),
        subjects: yield* subjectsOf(changes),
        research: yield* researchOf(changes),
        policy: {
          executableAllowlist: runtime.settings.executableAllowlist,
          commandSandbox: runtime.settings.commandSandbox,
          allowCommandNetwork: runtime.settings.allowCommandNetwork,
          allowDestructiveEdits: runtime.settings.allowDestructiveEdits
        }
      } satisfies ReviewState
    })
  )
}

/** A decision from the page: exactly the record it showed. */
export interface PageDecision {
  readonly verb: "accept" | "deny"
  readonly id: string
  /** The record's operation hash as shown ("" for a plan, which has none). */
  readonly hash: string
  /** recordVersion of the record as shown. */
  readonly version: string
  readonly text?: string
}

/**
 * Decides the record the page showed, inside the approvals store's lock: refused (TRANSACTION_STATE)
 * unless the stored record is still pending with the same hash and version.
 */
export const decideShown = (
  decision: PageDecision
): Effect.Effect<DecisionOutcome, ToolError, StateStore | import("../../core/gate/key.ts").WorkspaceKey> =>
  updateRecords((records, now) =>
    Effect.gen(function* () {
      const target = records.find((record) => record.id === decision.id)
      if (target === undefined)
        return yield* Effect.fail(
          toolError("NOT_FOUND", `No approval or plan ${decision.id} exists any more; the page has been refreshed.`, {
            id: decision.id
          })
        )
      if (target.status !== "pending") {
        return yield* Effect.fail(
          toolError(
            "TRANSACTION_STATE",
            `${target.id} is ${target.status} now, not pending: it was decided elsewhere, superseded or expired after the page loaded. Nothing was decided; look at the refreshed page.`,
            {
              id: target.id,
              status: target.status
            }
          )
        )
      }
      if ((target.hash ?? "") !== decision.hash || (yield* recordVersion(target)) !== decision.version) {
        return yield* Effect.fail(
          toolError(
            "TRANSACTION_STATE",
            `${target.id} changed after the page loaded: nothing was decided. Review the refreshed card and decide again.`,
            { id: target.id, status: target.status }
          )
        )
      }
      const applied = applyCommand(
        records,
        {
          verb: decision.verb,
          id: decision.id,
          ...(decision.text === undefined || decision.text === "" ? {} : { text: decision.text })
        },
        now
      )
      return "outcome" in applied ? ([applied.outcome, applied.records] as const) : yield* Effect.fail(applied)
    })
  )

/** A job's output as the page shows it: the last TAIL_BYTES of each log, their whole lengths, and whether it ended. */
export interface JobTail {
  readonly stdout: string
  readonly stderr: string
  /** The whole length of each log (characters): a tail that stays TAIL_BYTES long still shows as changed. */
  readonly stdoutChars: number
  readonly stderrChars: number
  readonly done: boolean
}

/**
 * The last TAIL_BYTES of a job's stdout and stderr, and its status, for the live tail. exit.json is looked
 * at BEFORE the logs: the supervisor writes it only after the job's group is gone, so logs read after it
 * are complete. (Read the other way round, a last line written between the log read and the exit check was
 * never sent: the stream saw "done" with the older logs and stopped.)
 */
export const jobTail = (runtime: WorkspaceRuntime, id: string): Promise<JobTail | undefined> =>
  runtime.run(
    Effect.gen(function* () {
      if (!/^job_[A-Za-z0-9]+$/.test(id)) return undefined
      const store = yield* StateStore
      const read = (rel: string) => Effect.orElseSucceed(store.readText(rel), () => undefined)
      const job = yield* read(`jobs/${id}/job.json`)
      if (job === undefined) return undefined
      const done = (yield* read(`jobs/${id}/exit.json`)) !== undefined
      const stdout = (yield* read(`jobs/${id}/stdout.log`)) ?? ""
      const stderr = (yield* read(`jobs/${id}/stderr.log`)) ?? ""
      const tail = (text: string) => (text.length > TAIL_BYTES ? text.slice(text.length - TAIL_BYTES) : text)
      return {
        stdout: tail(stdout),
        stderr: tail(stderr),
        stdoutChars: stdout.length,
        stderrChars: stderr.length,
        done
      }
    })
  )
