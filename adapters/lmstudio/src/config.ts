/**
 * Every setting of the core as LM Studio plugin config (per chat), with the core's defaults and
 * bounds; permissionMode is a 0-2 integer slider, default 1 (Plan). The values LM Studio hands back
 * are decoded once more by the core's own Settings schema, so both sides agree on every bound.
 */
import { createConfigSchematics } from "@lmstudio/sdk"
import { DEFAULT_EXECUTABLES, defaultSettings, SETTING_KEYS, type Settings } from "../../../core/settings/settings.ts"

type Field =
  | { readonly type: "numeric"; readonly params: Record<string, unknown> }
  | { readonly type: "boolean"; readonly params: Record<string, unknown> }
  | { readonly type: "stringArray"; readonly params: Record<string, unknown> }
  | { readonly type: "string"; readonly params: Record<string, unknown> }
  | { readonly type: "select"; readonly params: Record<string, unknown> }

/** How each setting is shown in LM Studio. Keys are exactly the core's setting keys. */
export const FIELDS: { readonly [K in keyof Settings]: Field } = {
  permissionMode: {
    type: "numeric",
    params: {
      displayName: "Permission mode",
      subtitle:
        "0 Manual: every mutation waits for /accept. 1 Plan: mutations need an approved plan. 2 Auto: mutations run.",
      int: true,
      min: 0,
      max: 2,
      step: 1,
      slider: { min: 0, max: 2, step: 1 }
    }
  },
  allowDestructiveEdits: {
    type: "boolean",
    params: {
      displayName: "Allow destructive commits",
      subtitle: "Deletes, moves, overwrites, forced rollback, checkout, branch delete, force push."
    }
  },
  protectedPatterns: {
    type: "stringArray",
    params: { displayName: "Protected globs", subtitle: "Readable but never writable, beside .git/** and .agentic/**." }
  },
  excludePatterns: {
    type: "stringArray",
    params: { displayName: "Excluded globs", subtitle: "Left out of listings and searches, beside .gitignore." }
  },
  maxToolResultChars: {
    type: "numeric",
    params: { displayName: "Maximum tool result characters", int: true, min: 1000, max: 10_000_000, step: 1000 }
  },
  maxCommandDurationSeconds: {
    type: "numeric",
    params: { displayName: "Maximum command duration (seconds)", int: true, min: 1, max: 86_400, step: 1 }
  },
  searchTimeoutMs: {
    type: "numeric",
    params: {
      displayName: "Search deadline (ms)",
      subtitle: "A search past it answers complete: false.",
      int: true,
      min: 100,
      max: 600_000,
      step: 100
    }
  },
  maxFileBytes: {
    type: "numeric",
    params: { displayName: "Largest file an edit loads (bytes)", int: true, min: 1024, max: 4 * 1024 ** 3, step: 1024 }
  },
  maxJobLogBytes: {
    type: "numeric",
    params: {
      displayName: "Job log cap (bytes)",
      subtitle: "Past it a job's output is truncated with a marker.",
      int: true,
      min: 1024,
      max: 1024 ** 4,
      step: 1024
    }
  },
  executableAllowlist: {
    type: "stringArray",
    params: {
      displayName: "Executable allowlist",
      subtitle: `Bare names; "*" allows any. Default: ${DEFAULT_EXECUTABLES.slice(0, 8).join(", ")}, …`
    }
  },
  workspaceCapabilities: {
    type: "stringArray",
    params: {
      displayName: "Workspaces capabilities",
      subtitle:
        "Allowed Workspaces capabilities (e.g. workspace:commands:v1, workspace:action:commit); default: all the host supports."
    }
  },
  enableProcessExecution: { type: "boolean", params: { displayName: "Enable process execution" } },
  commandSandbox: {
    type: "select",
    params: {
      displayName: "Command sandbox",
      subtitle:
        "auto: confine commands where the host can (bubblewrap on Linux). required: refuse to run unconfined. off: never confine.",
      options: ["auto", "required", "off"]
    }
  },
  allowCommandNetwork: {
    type: "boolean",
    params: {
      displayName: "Allow commands network access",
      subtitle: "Sandboxed commands share the host network (dev servers, npm install)."
    }
  },
  enableVcsTools: { type: "boolean", params: { displayName: "Enable VCS tools" } },
  vcsRunHooks: { type: "boolean", params: { displayName: "Run git hooks (workspace_vcs)" } },
  enableTodoBoards: { type: "boolean", params: { displayName: "Enable To-Do boards" } },
  enableWebResearch: { type: "boolean", params: { displayName: "Enable web research tools" } },
  enableBrowser: { type: "boolean", params: { displayName: "Enable browser sessions" } },
  enableBrowserEvaluate: { type: "boolean", params: { displayName: "Allow browser evaluate" } },
  browserExecutablePath: {
    type: "string",
    params: {
      displayName: "Browser executable",
      subtitle: "The Chromium to drive; empty: /usr/bin/chromium, chromium-browser or google-chrome, whichever exists."
    }
  },
  browserIdleMinutes: {
    type: "numeric",
    params: {
      displayName: "Browser idle minutes",
      subtitle: "Idle browser sessions are closed after this long.",
      int: true,
      min: 1,
      max: 10_080,
      step: 1
    }
  },
  languageServers: {
    type: "stringArray",
    params: {
      displayName: "Language servers",
      subtitle: "Languages whose server the code actions may start: typescript, python (empty: none)."
    }
  },
  languageServerIdleMinutes: {
    type: "numeric",
    params: {
      displayName: "Language server idle minutes",
      subtitle: "An idle language server is stopped after this long.",
      min: 0.05,
      max: 10_080,
      step: 1
    }
  },
  languageServerTimeoutMs: {
    type: "numeric",
    params: { displayName: "Language server request deadline (ms)", int: true, min: 100, max: 600_000, step: 100 }
  },
  enableSubAgents: { type: "boolean", params: { displayName: "Enable durable sub-agents" } },
  allowAgentCommands: { type: "boolean", params: { displayName: "Allow agents to run commands" } },
  allowAgentWebResearch: { type: "boolean", params: { displayName: "Allow sub-agents to use web research" } },
  maxFetchBytes: {
    type: "numeric",
    params: { displayName: "Maximum web response bytes", int: true, min: 1024, max: 1_000_000_000, step: 1024 }
  },
  fetchTimeoutMs: {
    type: "numeric",
    params: { displayName: "Web request timeout (ms)", int: true, min: 100, max: 600_000, step: 100 }
  },
  allowPrivateNetwork: {
    type: "boolean",
    params: {
      displayName: "Allow web requests to this machine and the local network",
      subtitle: "Cloud metadata addresses stay refused."
    }
  },
  duckduckgoUrl: { type: "string", params: { displayName: "DuckDuckGo HTML endpoint" } },
  wikipediaUrl: { type: "string", params: { displayName: "MediaWiki API endpoint" } },
  searxngUrl: {
    type: "string",
    params: { displayName: "SearXNG base URL", subtitle: "Empty: the searxng provider is off." }
  },
  stageEgressAfterUntrustedRead: {
    type: "boolean",
    params: {
      displayName: "Ask before web calls after reading the web",
      subtitle: "Stages the next web call after any fetch or browser read, even in Auto."
    }
  },
  modelBaseUrl: {
    type: "string",
    params: {
      displayName: "Sub-agent model endpoint",
      subtitle:
        "Not used inside LM Studio: runs use the plugin's own LM Studio client (the CLI and MCP hosts use this URL)."
    }
  },
  modelId: {
    type: "string",
    params: {
      displayName: "Sub-agent model",
      subtitle: "An LM Studio model key; empty: the model loaded in LM Studio."
    }
  },
  modelApiKeyEnv: {
    type: "string",
    params: {
      displayName: "Sub-agent API key variable",
      subtitle: "Not used inside LM Studio (the CLI and MCP hosts: the variable holding a key, never stored)."
    }
  },
  modelStreaming: {
    type: "boolean",
    params: {
      displayName: "Stream sub-agent completions",
      subtitle: "Not used inside LM Studio (its client always streams)."
    }
  }
}

const build = () => {
  // The builder's type grows with each field; the chain is built from the table, so it is typed loosely here.
  let builder: any = createConfigSchematics()
  for (const key of SETTING_KEYS) {
    const field = FIELDS[key]
    const fallback = defaultSettings[key]
    builder = builder.field(key, field.type, field.params, Array.isArray(fallback) ? [...fallback] : fallback)
  }
  return builder.build() as ReturnType<ReturnType<typeof createConfigSchematics>["build"]>
}

/** The plugin's per-chat config schematics. */
export const configSchematics = build()
