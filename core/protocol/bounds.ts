/**
 * Bounds on what a call may bring in and what a refusal may echo back: arguments are measured
 * (iteratively, so no input can exhaust the stack) before any schema decodes them, and every value a
 * message repeats is clipped.
 *
 * @example
 *   const refused = measureInput(args)            // undefined, or why the input is out of bounds
 *   `Unknown action "${echo(action)}"`             // at most ECHO_CHARS characters of the value
 */
import type { Envelope } from "./envelope.ts"

/** How deeply a call's arguments may nest (objects and arrays); no tool's schema needs more than a few levels. */
export const MAX_INPUT_DEPTH = 64
/**
 * The most characters a call's arguments may hold, counted as string and key characters plus one per
 * other value: the largest single operation the schemas admit (a workspace_edit replace's search and
 * replacement, each MAX_TEXT_CHARS = 5,000,000) plus 1,000,000 of margin.
 */
export const MAX_INPUT_CHARS = 2 * 5_000_000 + 1_000_000
/** The most characters of a value any message echoes. */
export const ECHO_CHARS = 300

/** A value as a message may echo it: at most ECHO_CHARS characters, "…" marking the cut. */
export const echo = (value: unknown, max = ECHO_CHARS): string => {
  const text = typeof value === "string" ? value : safeText(value)
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

const safeText = (value: unknown): string => {
  try {
    return String(JSON.stringify(value))
  } catch {
    return Array.isArray(value) ? "[array]" : typeof value === "object" && value !== null ? "{object}" : String(value)
  }
}

/** Why the arguments are out of bounds (depth or size), or undefined when they are within them. Never recursive. */
export const measureInput = (args: unknown): string | undefined => {
  const stack: Array<readonly [unknown, number]> = [[args, 1]]
  let chars = 0
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!
    if (typeof value === "string") chars += value.length
    else chars += 1
    if (value !== null && typeof value === "object") {
      if (depth > MAX_INPUT_DEPTH) {
        return `the arguments nest deeper than ${MAX_INPUT_DEPTH} levels; no field of any tool takes more than a few levels of objects and arrays`
      }
      if (Array.isArray(value)) for (const item of value) stack.push([item, depth + 1])
      else
        for (const [key, item] of Object.entries(value)) {
          chars += key.length
          stack.push([item, depth + 1])
        }
    }
    if (chars > MAX_INPUT_CHARS) {
      return `the arguments hold more than ${MAX_INPUT_CHARS.toLocaleString("en-US")} characters, more than any action admits; send less in one call (for example, split the operations across transactions)`
    }
  }
  return undefined
}

/**
 * A refusal that fits `maxChars` of JSON: a longer message is clipped and details dropped (they repeat
 * what the message says). Success envelopes are budgeted by their tools, not here.
 */
export const boundRefusal = (envelope: Envelope, maxChars: number): Envelope => {
  if (envelope.ok || envelope.error === undefined) return envelope
  if (JSON.stringify(envelope).length <= maxChars) return envelope
  const room = Math.max(200, Math.floor((maxChars - 600) / 2))
  const message = echo(envelope.error.message, room)
  const { data: _data, artifacts: _artifacts, ...rest } = envelope
  return {
    ...rest,
    operation: echo(envelope.operation, 100),
    summary: echo(`${envelope.error.code}: ${message}`, room),
    error: { code: envelope.error.code, message }
  }
}
