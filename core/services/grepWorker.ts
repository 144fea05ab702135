/**
 * The module Web Worker the host-free search runs a regex in (Deno has Web Workers), so that a search
 * past its deadline is stopped by terminating this worker. It only runs `grepText` over the text it is
 * sent; it reads nothing.
 */
import { grepText } from "./grepLines.ts"

interface Job {
  readonly text: string
  readonly source: string
  readonly flags: string
  readonly context: number
  readonly maxLineChars: number
}

const scope = globalThis as unknown as {
  onmessage: ((event: { data: Job }) => void) | null
  postMessage: (message: unknown) => void
}

scope.onmessage = (event) => {
  const job = event.data
  scope.postMessage(grepText(job.text, new RegExp(job.source, job.flags), job.context, job.maxLineChars))
}
