/** The help texts of the `agentic-workspace` command line (adapters/cli.ts): the usage and each verb's own. */
import { VERSION } from "./version.ts"

/** The help text. */
export const USAGE = `agentic-workspace ${VERSION}: workspace tools for LLM agents, gated by your permission mode.

Usage: agentic-workspace <verb> [arguments] [--root DIR] [--set key=value]...

  mcp [--http PORT]        serve the tools over MCP (stdio, or Streamable HTTP on 127.0.0.1)
  call TOOL 'JSON'|-|@FILE run one tool call (arguments as JSON, from stdin, or from a file); prints one envelope
                           (exit 0 ok, 1 not ok, 2 bad --set)
  tools                    list the registered tools as JSON
  approvals [--json]       pending and decided records, newest first; approvals show ID prints one in full
  accept [ID] [NOTE...]    approve a pending record (without ID: the newest pending one)
  deny [ID] [REASON...]    deny a pending record (without ID: the newest pending one)
  review [--port N] [--open] a review page on 127.0.0.1: pending approvals (diffs, commands), the plan, what
                           happened; Accept or Deny with one click (Node)
  workspaces SUB --json    the Workspaces tools' data for the terminal (status, review, changes, receipt,
                           reconcile, confirm, commit, push, branch); the working copy is --root (or --project)
  host                     the runtime and host this command runs on, as JSON
  verify [--runs N] [--seed S] [--host node|deno|memory] [--json]
                           prove the host gates as the reference model says (model-based test; exit 0 ok, 1 not)
  help                     this text; every verb takes --help (-h)
  --version                the package version

--root defaults to the current directory. --set takes any setting by key (e.g. --set permissionMode=0,
--set executableAllowlist=git,node); values are read as JSON when they parse, else as strings.
`

/** Each verb's own help, printed by `VERB --help` without doing anything else. */
export const VERB_HELP: Record<string, string> = {
  mcp: `agentic-workspace mcp [--http PORT [--token TOKEN]] [--review-port N] [--root DIR] [--set key=value]...

Serves the workspace tools over MCP: stdio by default; --http PORT serves Streamable HTTP on
127.0.0.1:PORT/mcp (0 picks a free port) with a bearer token printed at start (--token fixes it).
Without --root the workspace is the client's first MCP root (else the current directory). Prints one
start line on stderr (root, mode, transport, how to approve) and records its settings in
.agentic/host.json. Approve in the client's prompt or with: agentic-workspace accept ID --root DIR
--review-port N also serves the review page (agentic-workspace review) beside it and prints its URL.
`,
  call: `agentic-workspace call TOOL 'JSON' | - | @FILE [--root DIR] [--set key=value]...

Runs one tool call and prints exactly one envelope as JSON (exit 0 when ok, 1 when not). The arguments
are one JSON object: inline, "-" to read it from stdin, or @FILE to read it from a file (large contents
are then not cut by the OS argument limit).
`,
  tools: `agentic-workspace tools [--root DIR] [--set key=value]...

Prints the registered tools as JSON: [{name, description, inputSchema}].
`,
  approvals: `agentic-workspace approvals [--json] [--root DIR]
agentic-workspace approvals show ID [--root DIR]

Lists pending records (kind, title, files or argv or URL, destructive flag, age) and the decided ones
still live; "show ID" prints one record in full (the whole diff, the command, the plan). --json prints
every pending, approved and denied record. The mode shown is the running server's (.agentic/host.json).
`,
  accept: `agentic-workspace accept [ID] [NOTE...] [--root DIR]

Approves a pending record (without ID: the newest pending one) in the workspace's approvals store.
`,
  deny: `agentic-workspace deny [ID] [REASON...] [--root DIR]

Denies a pending record (without ID: the newest pending one); the reason is passed to the model.
`,
  review: `agentic-workspace review [--root DIR] [--port N] [--open] [--set key=value]...

Serves the review page on 127.0.0.1:N only (default and 0: a free port) and prints the URL to open; it
carries a random token, kept in an HttpOnly SameSite=Strict cookie after the first visit. The page shows
each pending approval as what it binds (a transaction's diff per file, a command's argv, cwd, allowlist
match and sandbox, a git command with its refs), the plan, and what happened (transactions, commits, jobs
with a live tail, research, task boards); Accept and Deny decide exactly the record shown. --open also
opens the URL in the desktop's browser. Stop with Ctrl-C.
`,
  workspaces: `agentic-workspace workspaces status|review|changes|receipt|reconcile [--root DIR | --project DIR] --json
    [--limit N --offset N] [--request-id ID]
agentic-workspace workspaces confirm --request-id ID [--yes] [--root DIR]
agentic-workspace workspaces commit MESSAGE | push REMOTE BRANCH | branch NAME [START] [--yes] [--root DIR]

The Workspaces tools' data for the terminal, one JSON document on stdout (docs/WORKSPACES.md). The working
copy is --root DIR or --project DIR (one is required: the current folder is never assumed). Reads refuse
--yes; commit, push and branch act only with --yes and otherwise print what they would do.
`,
  host: `agentic-workspace host

Prints the runtime and host this command runs on, as JSON.
`,
  verify: `agentic-workspace verify [--runs N] [--seed S] [--host node|deno|memory] [--json]

Runs the model-based test of the approval semantics against a host: N (default 100) random sequences,
seeded by S (default 20261201), of gated calls (workspace_edit apply, commit, rollback; workspace_plan
propose, complete), /accept and /deny (bare, by id, unknown), clock jumps past expiry, file changes and
setting changes, each step held against the reference model. --host defaults to memory; node runs in a
fresh temporary directory. Prints a report; with --json stdout is exactly one JSON object
{ ok, seed, runs, sequences, cellsCovered, cellsTotal, counterexample } (progress on stderr), the same for
the same --seed and --runs apart from fields ending in Ms or At. Exit 0 when it agrees, 1 with a shrunk
counterexample when it does not. --plant-fault skip-denial (test only) makes the gate ignore denials;
--plant-fault accept-after-change (test only) binds approvals without the state of the files they touch.
`,
  help: USAGE
}
