/**
 * The files of a browser session's folder (`.agentic/browser/<session_id>/`, core/services/Browser.ts) as
 * Schemas: `spec.json` (written by the host's launch, read by its supervisor), `started.json` and `exit.json`
 * (written by the supervisor, adapters/node/browserSupervisor.ts, read by the host's launch) and `events.json`
 * (written by the supervisor, read by workspace_browser's view). Every reader decodes with
 * `decodeJobFile` (core/services/jobFiles.ts): a file that is not JSON or does not decode is reported by
 * name with the repair (move the session folder aside), never cast. The session record itself
 * (`session.json`) is the tool's: core/tools/browser/load.ts.
 *
 * @example
 *   const started = decodeJobFile("started.json", BrowserStartedSchema, text)
 *   if (started._tag === "Right") started.right.cdpUrl
 */
import * as Schema from "effect/Schema"

/** spec.json: what the supervisor starts. */
export const BrowserSpecSchema = Schema.Struct({
  executablePath: Schema.String,
  userDataDir: Schema.String,
  allowPrivateNetwork: Schema.Boolean
})
export type BrowserSpec = typeof BrowserSpecSchema.Type

/** started.json: the browser runs and its DevTools endpoint is open. */
export const BrowserStartedSchema = Schema.Struct({
  cdpUrl: Schema.String,
  proxyPort: Schema.Number,
  browserPid: Schema.Number,
  supervisorPid: Schema.optional(Schema.Number),
  startedAt: Schema.optional(Schema.String)
})
export type BrowserStarted = typeof BrowserStartedSchema.Type

/** exit.json: the supervisor ended (closed on a signal, failed to start, or lost its browser). */
export const BrowserExitSchema = Schema.Struct({
  status: Schema.String,
  endedAt: Schema.String,
  detail: Schema.optional(Schema.String)
})
export type BrowserExit = typeof BrowserExitSchema.Type

/** One event a page reported. */
export const PageEventSchema = Schema.Struct({
  seq: Schema.Number,
  at: Schema.String,
  kind: Schema.Literal("console", "exception", "request", "egress", "dialog"),
  text: Schema.String,
  url: Schema.optional(Schema.String)
})
export type PageEvent = typeof PageEventSchema.Type

/** events.json: the last events of each kind (bounded) and the totals since the session opened. */
export const PageEventsSchema = Schema.Struct({
  version: Schema.Literal(1),
  seq: Schema.Number,
  totals: Schema.Record({ key: Schema.String, value: Schema.Number }),
  proxyRefusals: Schema.Number,
  events: Schema.Array(PageEventSchema)
})
export type PageEvents = typeof PageEventsSchema.Type

/** The repair named by every refusal of a session file. */
export const SESSION_FILE_REPAIR =
  "close the session's browser (kill its supervisor's process group), move the session folder aside and open a new session"
