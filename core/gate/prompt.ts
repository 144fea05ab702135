/**
 * What the user is asked to approve: a typed prompt per gate kind, carried by every gated plan and
 * stored on its approval record. MCP elicitation, the LM Studio plugin and the CLI render it with
 * `promptLines`, so no host digs the diff or the command out of a tool's data.
 */
import * as Schema from "effect/Schema"

/** A transaction: its (bounded) unified diff and the paths it touches. */
export const TransactionPrompt = Schema.TaggedStruct("transaction", {
  diff: Schema.String,
  paths: Schema.Array(Schema.String)
})
/** A command: exactly what is executed, and where. */
export const CommandPrompt = Schema.TaggedStruct("command", {
  argv: Schema.Array(Schema.String),
  cwd: Schema.String
})
/** A version-control call: the argv, where, and the refs it reads or moves. */
export const VcsPrompt = Schema.TaggedStruct("vcs", {
  argv: Schema.Array(Schema.String),
  cwd: Schema.String,
  refs: Schema.Array(Schema.String)
})
/** A request that leaves this machine: a URL, or a search query. */
export const WebPrompt = Schema.TaggedStruct("web", {
  url: Schema.optional(Schema.String),
  query: Schema.optional(Schema.String)
})
/**
 * A browser control on a live page: the session, the page it acts on (the session's URL when the control
 * was planned; optional so records staged before it existed still decode) and what is done there. The
 * approval's hash is of the control's plan, which binds that page for every control that acts on it
 * (click_text, press, back, reload and evaluate bind the URL; click, type, wait and scroll on a ref bind
 * the snapshot the ref was read from); navigate binds its destination.
 */
export const BrowserPrompt = Schema.TaggedStruct("browser", {
  session: Schema.String,
  page: Schema.optional(Schema.String),
  control: Schema.String
})
/** A sub-agent run: what it may reach. */
export const AgentPrompt = Schema.TaggedStruct("agent", {
  objective: Schema.String,
  reach: Schema.Struct({ commitEdits: Schema.Boolean, commands: Schema.Boolean, web: Schema.Boolean })
})

/** The prompt union; its tag is the gate kind. */
export const Prompt = Schema.Union(TransactionPrompt, CommandPrompt, VcsPrompt, WebPrompt, BrowserPrompt, AgentPrompt)
export type Prompt = typeof Prompt.Type

/** How much of a diff an approval record keeps (the envelope and the stored diff artifact have all of it). */
export const RECORD_DIFF_CHARS = 4000

/** The prompt as an approval record stores it: the diff clipped, so 300 records stay small. */
export const storedPrompt = (prompt: Prompt): Prompt =>
  prompt._tag === "transaction" && prompt.diff.length > RECORD_DIFF_CHARS
    ? {
        ...prompt,
        diff: `${prompt.diff.slice(0, RECORD_DIFF_CHARS)}\n… (diff clipped; the full diff is in the transaction's changes.diff)`
      }
    : prompt

const quoted = (part: string) => (part === "" || /[\s"'\\$`|&;<>()*?]/.test(part) ? JSON.stringify(part) : part)
const line = (argv: ReadonlyArray<string>) => argv.map(quoted).join(" ")
const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters)`

/** The lines every host shows for a prompt; `maxChars` bounds a diff. */
export const promptLines = (prompt: Prompt, maxChars = 6000): ReadonlyArray<string> => {
  switch (prompt._tag) {
    case "transaction":
      return [`Files: ${prompt.paths.join(", ") || "(none)"}`, "Diff:", clip(prompt.diff, maxChars)]
    case "command":
      return [`Command: ${line(prompt.argv)}`, `In: ${prompt.cwd === "" ? "the workspace root" : prompt.cwd}`]
    case "vcs":
      return [
        `Runs: ${line(prompt.argv)}`,
        `In: ${prompt.cwd === "" ? "the workspace root" : prompt.cwd}`,
        ...(prompt.refs.length > 0 ? [`Refs: ${prompt.refs.join(", ")}`] : [])
      ]
    case "web":
      return [prompt.url !== undefined ? `Fetches: ${prompt.url}` : `Searches the web for: ${prompt.query ?? ""}`]
    case "browser":
      return [
        `Browser session ${prompt.session}${prompt.page === undefined ? "" : ` on ${prompt.page}`}: ${prompt.control}`
      ]
    case "agent":
      return [
        `Sub-agent: ${clip(prompt.objective, 300)}`,
        `Reach: ${prompt.reach.commitEdits ? "commits its edits" : "edits stay planned"}; ${prompt.reach.commands ? "runs commands" : "no commands"}; ${prompt.reach.web ? "reaches the web" : "no web"}`
      ]
  }
}
