/** workspace_browser's wire input: one Struct per action, names as the reference gives them. */
import * as Schema from "effect/Schema"
import { BoundedString } from "../Tool.ts"

import { TYPE_MAX_CHARS, WAIT_MAX_MS } from "./limits.ts"

/** The longest a wait may be, in milliseconds, and the most characters one type control may type (limits.ts). */
export { TYPE_MAX_CHARS, WAIT_MAX_MS }
/** read's default and largest page, in lines. */
export const READ_DEFAULT_LIMIT = 400
export const READ_MAX_LIMIT = 5000

/** A session id as open returns it. */
export const SESSION_PATTERN = /^bs_[0-9a-f]{16}$/

const SessionId = Schema.String.pipe(
  Schema.pattern(SESSION_PATTERN, { message: () => "must be a bs_* session id as open returned it" })
).annotations({
  description: "The session id (bs_…) that open returned."
})
const Ref = Schema.String.pipe(
  Schema.pattern(/^e\d+$/, { message: () => 'must be a ref like "e12" from the latest read' })
).annotations({
  description: "An element ref (e12) from the latest snapshot of this session."
})
const Snapshot = Schema.String.pipe(
  Schema.pattern(/^[0-9a-f]{64}$/, { message: () => "must be data.snapshot (64 hex characters) of a read" })
).annotations({
  description: "data.snapshot of the read a ref or page came from (64 hex)."
})

const readFields = {
  session_id: SessionId,
  offset: Schema.optional(
    Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)).annotations({
      description: "First line of the page (default 0); nonzero needs snapshot."
    })
  ),
  limit: Schema.optional(
    Schema.Int.pipe(Schema.between(1, READ_MAX_LIMIT)).annotations({
      description: `Lines per page (1-${READ_MAX_LIMIT}, default ${READ_DEFAULT_LIMIT}); the result budget may cut it.`
    })
  ),
  snapshot: Schema.optional(Snapshot),
  selector: Schema.optional(BoundedString(1000, "A CSS selector: read only the subtree of its first match.")),
  ref: Schema.optional(Ref),
  text: Schema.optional(
    Schema.Boolean.annotations({
      description: "true: the readable text of the page (or subtree) instead of the accessibility tree."
    })
  ),
  screenshot: Schema.optional(
    Schema.Boolean.annotations({
      description: "true: also a PNG artifact of the full page (or of the selector/ref element)."
    })
  )
}

const CONTROL_TYPES = ["navigate", "click", "click_text", "type", "press", "wait", "scroll", "back", "reload"] as const

const controlFields = {
  session_id: SessionId,
  url: Schema.optional(BoundedString(8192, "navigate: the http(s) URL to load.")),
  ref: Schema.optional(Ref),
  snapshot: Schema.optional(Snapshot),
  text: Schema.optional(
    BoundedString(
      TYPE_MAX_CHARS,
      `type: the text to enter (at most ${TYPE_MAX_CHARS} characters, replaces the field's value); click_text and wait: the text to find.`
    )
  ),
  exact: Schema.optional(
    Schema.Boolean.annotations({
      description: "click_text: match the whole text exactly (default false: substring, case-insensitive)."
    })
  ),
  submit: Schema.optional(Schema.Boolean.annotations({ description: "type: press Enter after typing." })),
  key: Schema.optional(BoundedString(64, "press: a key such as Enter, Tab, Escape, ArrowDown or Control+A.")),
  ms: Schema.optional(
    Schema.Int.pipe(
      Schema.between(0, WAIT_MAX_MS, { message: () => `must be an integer from 0 to ${WAIT_MAX_MS} (the wait cap)` })
    ).annotations({
      description: `wait: milliseconds to wait (alone), or the longest to wait for text or ref (default 10000); at most ${WAIT_MAX_MS}.`
    })
  ),
  direction: Schema.optional(
    Schema.Literal("up", "down").annotations({
      description: "scroll: up or down by most of a screen (or give ref to scroll it into view)."
    })
  )
}

const controlWithout = Schema.Struct({
  ...controlFields,
  type: Schema.Literal(...CONTROL_TYPES).annotations({ description: `The control: ${CONTROL_TYPES.join(", ")}.` })
})
const controlWith = Schema.Struct({
  ...controlFields,
  type: Schema.Literal(...CONTROL_TYPES, "evaluate").annotations({
    description: `The control: ${[...CONTROL_TYPES, "evaluate"].join(", ")}.`
  }),
  expression: Schema.optional(
    BoundedString(10_000, "evaluate: a JavaScript expression run in the page; its JSON result is returned.")
  )
})

/** The action Structs; `evaluate` decides whether control knows the evaluate type and its expression field. */
export const browserActions = (evaluate: boolean) => ({
  open: Schema.Struct({}),
  read: Schema.Struct(readFields),
  control: (evaluate ? controlWith : controlWithout) as typeof controlWith,
  list: Schema.Struct({}),
  close: Schema.Struct({ session_id: SessionId })
})

/** The decoded read input. */
export interface ReadInput {
  readonly session_id: string
  readonly offset?: number | undefined
  readonly limit?: number | undefined
  readonly snapshot?: string | undefined
  readonly selector?: string | undefined
  readonly ref?: string | undefined
  readonly text?: boolean | undefined
  readonly screenshot?: boolean | undefined
}

/** The control types. */
export type ControlType = (typeof CONTROL_TYPES)[number] | "evaluate"

/** The decoded control input. */
export interface ControlInput {
  readonly session_id: string
  readonly type: ControlType
  readonly url?: string | undefined
  readonly ref?: string | undefined
  readonly snapshot?: string | undefined
  readonly text?: string | undefined
  readonly exact?: boolean | undefined
  readonly submit?: boolean | undefined
  readonly key?: string | undefined
  readonly ms?: number | undefined
  readonly direction?: "up" | "down" | undefined
  readonly expression?: string | undefined
}
