/** One Schema for every setting the reference names, with its default. These keys are the adapters' contract. */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { ALL_WORKSPACE_CAPABILITIES } from "../tools/workspaces/names.ts"

/** The executables a command may run by default: common development tools, no shells. */
export const DEFAULT_EXECUTABLES: ReadonlyArray<string> = [
  "node",
  "npm",
  "npx",
  "pnpm",
  "yarn",
  "deno",
  "bun",
  "tsc",
  "tsx",
  "vitest",
  "jest",
  "eslint",
  "prettier",
  "git",
  "gh",
  "python",
  "python3",
  "pip",
  "pip3",
  "pytest",
  "uv",
  "cargo",
  "rustc",
  "go",
  "make",
  "cmake",
  "java",
  "javac",
  "mvn",
  "gradle",
  "dotnet",
  "rg",
  "ls",
  "cat",
  "echo",
  "true",
  "false",
  "pwd",
  "wc",
  "head",
  "tail",
  "sort",
  "diff",
  "grep",
  "find",
  "sleep",
  "env",
  "which"
]

const Bool = (value: boolean) => Schema.optionalWith(Schema.Boolean, { default: () => value })

/** The settings, decoded with defaults. Unknown keys are refused by `decodeSettings`. */
export const Settings = Schema.Struct({
  /** 0 Manual, 1 Plan (default), 2 Auto. */
  permissionMode: Schema.optionalWith(Schema.Literal(0, 1, 2), { default: () => 1 as const }),
  /** The destructive ceiling: without it deletes, moves, overwrites, forced rollbacks, checkout, branch delete and force push are refused. */
  allowDestructiveEdits: Bool(false),
  /** Extra globs (minimatch, workspace-relative) that are readable but never writable, beside .git/** and .agentic/**. */
  protectedPatterns: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  /** Globs (minimatch, workspace-relative) that workspace_inspect listings and searches skip, beside .gitignore. */
  excludePatterns: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  /** The character budget of one result; larger results go to artifacts. */
  maxToolResultChars: Schema.optionalWith(
    Schema.Int.pipe(Schema.greaterThanOrEqualTo(1000), Schema.lessThanOrEqualTo(10_000_000)),
    {
      default: () => 20_000
    }
  ),
  /** The default and the cap of a command's timeout_seconds. */
  maxCommandDurationSeconds: Schema.optionalWith(
    Schema.Int.pipe(Schema.greaterThanOrEqualTo(1), Schema.lessThanOrEqualTo(86_400)),
    {
      default: () => 600
    }
  ),
  /** The deadline of one workspace_inspect search, in milliseconds; a search past it answers complete: false. */
  searchTimeoutMs: Schema.optionalWith(
    Schema.Int.pipe(Schema.greaterThanOrEqualTo(100), Schema.lessThanOrEqualTo(600_000)),
    {
      default: () => 10_000
    }
  ),
  /** The largest file workspace_edit loads (preview, apply, commit); larger files fail FILE_TOO_LARGE. */
  maxFileBytes: Schema.optionalWith(
    Schema.Int.pipe(Schema.greaterThanOrEqualTo(1024), Schema.lessThanOrEqualTo(4 * 1024 ** 3)),
    {
      default: () => 256 * 1024 * 1024
    }
  ),
  /** The most bytes a job's stdout and stderr logs may hold together; past it the output is truncated with a marker. */
  maxJobLogBytes: Schema.optionalWith(
    Schema.Int.pipe(Schema.greaterThanOrEqualTo(1024), Schema.lessThanOrEqualTo(1024 ** 4)),
    {
      default: () => 1024 ** 3
    }
  ),
  /** Executables a command may run (bare names); "*" allows any. */
  executableAllowlist: Schema.optionalWith(Schema.Array(Schema.String), { default: () => DEFAULT_EXECUTABLES }),
  enableProcessExecution: Bool(true),
  /**
   * The command sandbox (docs/SECURITY.md): "auto" confines commands where the host can and otherwise runs
   * them unconfined and says so; "required" refuses (SANDBOX_UNAVAILABLE) where it cannot; "off" never confines.
   */
  commandSandbox: Schema.optionalWith(Schema.Literal("auto", "required", "off"), { default: () => "auto" as const }),
  /** Whether a sandboxed command shares the host's network (a dev server the user must reach, npm install). */
  allowCommandNetwork: Bool(false),
  enableVcsTools: Bool(true),
  /** workspace_vcs: let git run the repository's hooks (off: hooks never run; git gets an empty hooks path). */
  vcsRunHooks: Bool(false),
  /** The Workspaces capabilities the user allows (intersected with what the host supports); default: all of them. */
  workspaceCapabilities: Schema.optionalWith(Schema.Array(Schema.Literal(...ALL_WORKSPACE_CAPABILITIES)), {
    default: () => ALL_WORKSPACE_CAPABILITIES
  }),
  enableTodoBoards: Bool(true),
  enableWebResearch: Bool(false),
  enableBrowser: Bool(false),
  enableBrowserEvaluate: Bool(false),
  /** The Chromium workspace_browser drives; empty: the first of /usr/bin/chromium, chromium-browser, google-chrome on PATH that exists. */
  browserExecutablePath: Schema.optionalWith(Schema.String, { default: () => "" }),
  /** Browser sessions idle longer than this are closed on the next workspace_browser call. */
  browserIdleMinutes: Schema.optionalWith(
    Schema.Int.pipe(Schema.greaterThanOrEqualTo(1), Schema.lessThanOrEqualTo(10_080)),
    { default: () => 30 }
  ),
  /** The languages whose server workspace_inspect's code actions may start (docs/CODE.md); [] turns them all off. */
  languageServers: Schema.optionalWith(Schema.Array(Schema.Literal("typescript", "python")), {
    default: () => ["typescript", "python"] as const
  }),
  /** A language server idle this long is stopped (the next code action starts it again); fractions allowed. */
  languageServerIdleMinutes: Schema.optionalWith(
    Schema.Number.pipe(Schema.greaterThanOrEqualTo(0.05), Schema.lessThanOrEqualTo(10_080)),
    { default: () => 10 }
  ),
  /** The deadline of one language-server request (a start included), in milliseconds. */
  languageServerTimeoutMs: Schema.optionalWith(
    Schema.Int.pipe(Schema.greaterThanOrEqualTo(100), Schema.lessThanOrEqualTo(600_000)),
    { default: () => 30_000 }
  ),
  enableSubAgents: Bool(false),
  allowAgentCommands: Bool(false),
  allowAgentWebResearch: Bool(false),
  /** The response cap of one web request in bytes (workspace_research fetch and search). */
  maxFetchBytes: Schema.optionalWith(
    Schema.Int.pipe(Schema.greaterThanOrEqualTo(1024), Schema.lessThanOrEqualTo(1_000_000_000)),
    {
      default: () => 5_000_000
    }
  ),
  /** The deadline of one web request, redirects and body included, in milliseconds. */
  fetchTimeoutMs: Schema.optionalWith(
    Schema.Int.pipe(Schema.greaterThanOrEqualTo(100), Schema.lessThanOrEqualTo(600_000)),
    {
      default: () => 30_000
    }
  ),
  /** Lets web requests (research, the browser's pages) reach loopback, private and link-local addresses (cloud metadata addresses never). */
  allowPrivateNetwork: Bool(false),
  /** The DuckDuckGo HTML results endpoint. */
  duckduckgoUrl: Schema.optionalWith(Schema.String, { default: () => "https://html.duckduckgo.com/html/" }),
  /** The MediaWiki API endpoint (api.php) the wikipedia provider asks. */
  wikipediaUrl: Schema.optionalWith(Schema.String, { default: () => "https://en.wikipedia.org/w/api.php" }),
  /** The base URL of a SearXNG instance; the searxng provider is available only when it is set. */
  searxngUrl: Schema.optionalWith(Schema.String, { default: () => "" }),
  /** Stage the next web call for the user after any fetch or browser read, even in Auto or under an approved plan. */
  stageEgressAfterUntrustedRead: Bool(false),
  /** The OpenAI-compatible endpoint sub-agent runs talk to (the user's own; default LM Studio's local server). */
  modelBaseUrl: Schema.optionalWith(Schema.String, { default: () => "http://127.0.0.1:1234/v1" }),
  /** The model sub-agent runs use unless a run names one (model_id); empty: the endpoint's default ("local-model"). */
  modelId: Schema.optionalWith(Schema.String, { default: () => "" }),
  /** The name of the environment variable holding the endpoint's API key (empty: no key). The key itself is never stored. */
  modelApiKeyEnv: Schema.optionalWith(Schema.String, { default: () => "" }),
  /** Ask the model endpoint for a streamed completion (server-sent events) instead of one response. */
  modelStreaming: Bool(false)
})
export type Settings = typeof Settings.Type
export type SettingsInput = typeof Settings.Encoded

/** Every setting key, in the order the reference's adapters show them. */
export const SETTING_KEYS = Object.keys(Settings.fields) as ReadonlyArray<keyof Settings>

/** The defaults, i.e. the decoding of `{}`. */
export const defaultSettings: Settings = Schema.decodeUnknownSync(Settings)({})

const decode = Schema.decodeUnknownEither(Settings, { onExcessProperty: "error", errors: "all" })

/** What each setting must be, for refusal messages. */
const EXPECTED: Record<string, string> = {
  permissionMode: "must be 0 (Manual), 1 (Plan) or 2 (Auto)",
  protectedPatterns: "must be a list of glob strings",
  excludePatterns: "must be a list of glob strings",
  executableAllowlist: 'must be a list of executable names ("*" allows any)',
  workspaceCapabilities: `must be a list of Workspaces capabilities (${ALL_WORKSPACE_CAPABILITIES.join(", ")})`,
  maxToolResultChars: "must be an integer from 1000 to 10000000",
  maxCommandDurationSeconds: "must be an integer from 1 to 86400",
  maxFetchBytes: "must be an integer from 1024 to 1000000000 (bytes)",
  fetchTimeoutMs: "must be an integer from 100 to 600000 (milliseconds)",
  duckduckgoUrl: "must be a URL string",
  wikipediaUrl: "must be a URL string",
  searxngUrl: 'must be a URL string ("" leaves searxng off)',
  searchTimeoutMs: "must be an integer from 100 to 600000 (milliseconds)",
  maxFileBytes: "must be an integer from 1024 to 4294967296 (bytes)",
  maxJobLogBytes: "must be an integer from 1024 to 1099511627776 (bytes)",
  commandSandbox: 'must be "auto", "required" or "off"',
  browserExecutablePath: "must be a path to a Chromium executable (or empty for the default)",
  browserIdleMinutes: "must be an integer from 1 to 10080",
  languageServers: 'must be a list of languages ("typescript", "python")',
  languageServerIdleMinutes: "must be a number of minutes from 0.05 to 10080",
  languageServerTimeoutMs: "must be an integer from 100 to 600000 (milliseconds)",
  modelBaseUrl: "must be the URL of an OpenAI-compatible endpoint (e.g. http://127.0.0.1:1234/v1)",
  modelId: "must be a model id string (or empty for the endpoint's default)",
  modelApiKeyEnv: "must be the name of an environment variable (or empty for no key)"
}

/** Decodes settings, refusing unknown keys and out-of-range values with a message naming each. */
export const decodeSettings = (input: unknown): Either.Either<Settings, string> =>
  Either.mapLeft(decode(input), (error) =>
    [
      ...new Set(
        ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => {
          const key = String(issue.path[0] ?? "")
          if (issue._tag === "Unexpected") return `unknown setting "${key}" (known: ${SETTING_KEYS.join(", ")})`
          const given = JSON.stringify((input as Record<string, unknown> | null)?.[key])
          return `setting ${key} ${EXPECTED[key] ?? "must be true or false"}, got ${given}`
        })
      )
    ].join("; ")
  )

/** Reads one `key=value` override (core/settings/parseValue.ts, which loads without the Schema). */
export { parseSettingValue } from "./parseValue.ts"

/** The name the reference gives each permission level. */
export const modeName = (mode: Settings["permissionMode"]): "manual" | "plan" | "auto" =>
  mode === 0 ? "manual" : mode === 1 ? "plan" : "auto"

/** "Manual (0)", "Plan (1)", "Auto (2)". */
export const modeLabel = (mode: Settings["permissionMode"]): string =>
  `${mode === 0 ? "Manual" : mode === 1 ? "Plan" : "Auto"} (${mode})`
