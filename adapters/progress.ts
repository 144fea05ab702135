/**
 * Progress of one tool call as its host shows it (issue 18): MCP notifications/progress for a tools/call whose
 * request carried `_meta.progressToken`, and the LM Studio plugin's status line.
 * A tool's own reports (core/services/Progress.ts: files searched, bytes written) are forwarded as they
 * come; while a call reports nothing, a heartbeat says it is still working, so a client sees a long
 * search, foreground command or commit is alive. `progress` strictly increases, as the protocol requires:
 * a report that would not increase it is dropped, and once a tool gave a `total` the heartbeat is silent
 * (it cannot add to a count of real work).
 */
import type { ProgressUpdate } from "../core/services/Progress.ts"
import { defined } from "../core/text/defined.ts"

/** How often a call that reports nothing sends a heartbeat. */
export const PROGRESS_HEARTBEAT_MS = 1000

/** The params of one notifications/progress (without the token). */
export interface ProgressParams {
  readonly progress: number
  readonly total?: number
  readonly message: string
}

/** A started progress stream: feed it the tool's updates, stop it when the call settles. */
export interface ProgressStream {
  readonly onProgress: (update: ProgressUpdate) => void
  readonly stop: () => void
}

/** Starts the stream of one call; `send` delivers one notification (its failure is ignored). */
export const startProgress = (
  tool: string,
  send: (params: ProgressParams) => Promise<void>,
  heartbeatMs: number = PROGRESS_HEARTBEAT_MS
): ProgressStream => {
  const started = Date.now()
  let last = 0
  let lastSent = started
  let hasTotal = false
  let stopped = false
  const emit = (params: ProgressParams) => {
    if (stopped || !(params.progress > last)) return
    last = params.progress
    lastSent = Date.now()
    send(params).catch(() => undefined)
  }
  const timer = setInterval(() => {
    if (hasTotal || Date.now() - lastSent < heartbeatMs * 0.9) return
    emit({ progress: last + 1, message: `${tool}: still working (${Math.round((Date.now() - started) / 1000)} s)` })
  }, heartbeatMs)
  return {
    onProgress: (update) => {
      if (update.total !== undefined) hasTotal = true
      emit({
        progress: update.progress,
        ...defined({ total: update.total }),
        message: `${tool}: ${update.message}`
      })
    },
    stop: () => {
      stopped = true
      clearInterval(timer)
    }
  }
}
