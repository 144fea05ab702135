/** Issue 2 §3, settings: one Schema, the reference's keys and defaults; unknown keys and out-of-range values refused. */
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import { decodeSettings, defaultSettings, parseSettingValue, SETTING_KEYS } from "../../core/settings/settings.ts"

describe("settings", () => {
  it("every key the issue names, with its default ('permissionMode (0-2, default 1)', 'allowDestructiveEdits (false)', 'maxToolResultChars (default 20000, minimum 1000)', 'enableProcessExecution (true)')", () => {
    expect([...SETTING_KEYS].sort()).toEqual(
      [
        "permissionMode",
        "allowDestructiveEdits",
        "protectedPatterns",
        "excludePatterns",
        "maxToolResultChars",
        "maxCommandDurationSeconds",
        "searchTimeoutMs",
        "maxFileBytes",
        "maxJobLogBytes",
        "executableAllowlist",
        "enableProcessExecution",
        "commandSandbox",
        "allowCommandNetwork",
        "enableVcsTools",
        "vcsRunHooks",
        "workspaceCapabilities",
        "enableTodoBoards",
        "enableWebResearch",
        "enableBrowser",
        "enableBrowserEvaluate",
        "browserExecutablePath",
        "browserIdleMinutes",
        "languageServers",
        "languageServerIdleMinutes",
        "languageServerTimeoutMs",
        "enableSubAgents",
        "allowAgentCommands",
        "allowAgentWebResearch",
        "maxFetchBytes",
        "fetchTimeoutMs",
        "allowPrivateNetwork",
        "duckduckgoUrl",
        "wikipediaUrl",
        "searxngUrl",
        "stageEgressAfterUntrustedRead",
        "modelBaseUrl",
        "modelId",
        "modelApiKeyEnv",
        "modelStreaming"
      ].sort()
    )
    expect(defaultSettings).toMatchObject({
      permissionMode: 1,
      allowDestructiveEdits: false,
      protectedPatterns: [],
      maxToolResultChars: 20_000,
      enableProcessExecution: true
    })
    expect(defaultSettings.maxCommandDurationSeconds).toBeGreaterThan(0)
  })

  it("issue 16's settings: 'modelBaseUrl, default LM Studio's local server http://127.0.0.1:1234/v1', modelId, optional modelApiKeyEnv naming the environment variable", () => {
    expect(defaultSettings).toMatchObject({
      modelBaseUrl: "http://127.0.0.1:1234/v1",
      modelId: "",
      modelApiKeyEnv: "",
      modelStreaming: false
    })
    expect(Either.isLeft(decodeSettings({ modelBaseUrl: 3 }))).toBe(true)
  })

  it("issue 10's settings: searchTimeoutMs (default 10,000), maxFileBytes (default 256 MiB), maxJobLogBytes (default 1 GiB), bounded", () => {
    expect(defaultSettings).toMatchObject({
      searchTimeoutMs: 10_000,
      maxFileBytes: 256 * 1024 * 1024,
      maxJobLogBytes: 1024 ** 3
    })
    expect(Either.isLeft(decodeSettings({ searchTimeoutMs: 0 }))).toBe(true)
    expect(Either.isLeft(decodeSettings({ maxFileBytes: -1 }))).toBe(true)
    expect(Either.isLeft(decodeSettings({ maxJobLogBytes: 1.5 }))).toBe(true)
  })

  it("'executableAllowlist (a default list of common development executables that includes node, npm, npx, git and gh; * allows any)'", () => {
    expect(defaultSettings.executableAllowlist).toEqual(expect.arrayContaining(["node", "npm", "npx", "git", "gh"]))
    expect(defaultSettings.executableAllowlist).not.toContain("sh")
    expect(defaultSettings.executableAllowlist).not.toContain("bash")
    expect(Either.getOrThrow(decodeSettings({ executableAllowlist: ["*"] })).executableAllowlist).toEqual(["*"])
  })

  const refused: Array<[string, Record<string, unknown>, string]> = [
    ["an unknown key", { permissionLevel: 2 }, 'unknown setting "permissionLevel"'],
    [
      "permissionMode 3",
      { permissionMode: 3 },
      "setting permissionMode must be 0 (Manual), 1 (Plan) or 2 (Auto), got 3"
    ],
    ["permissionMode -1", { permissionMode: -1 }, "permissionMode"],
    ["permissionMode as a word", { permissionMode: "auto" }, 'got "auto"'],
    ["maxToolResultChars below 1000", { maxToolResultChars: 999 }, "maxToolResultChars must be an integer from 1000"],
    ["maxToolResultChars not an integer", { maxToolResultChars: 1000.5 }, "maxToolResultChars"],
    ["maxCommandDurationSeconds 0", { maxCommandDurationSeconds: 0 }, "maxCommandDurationSeconds"],
    [
      "a boolean given as a string",
      { allowDestructiveEdits: "yes" },
      "setting allowDestructiveEdits must be true or false"
    ],
    ["a list given as a number", { protectedPatterns: 5 }, "protectedPatterns must be a list of glob strings"]
  ]
  for (const [what, input, message] of refused) {
    it(`'An unknown key or a value out of range is refused with a message, never ignored': ${what}`, () => {
      const decoded = decodeSettings(input)
      expect(Either.isLeft(decoded)).toBe(true)
      expect(Either.isLeft(decoded) && decoded.left).toContain(message)
    })
  }

  it("several problems are all named", () => {
    const decoded = decodeSettings({ permissionMode: 9, nope: true })
    expect(Either.isLeft(decoded) && decoded.left).toMatch(
      /permissionMode.*unknown setting "nope"|unknown setting "nope".*permissionMode/
    )
  })

  it("'the value is read as JSON when it parses as JSON, else as a string, and a list also takes a comma-separated string'", () => {
    expect(parseSettingValue("permissionMode", "0")).toBe(0)
    expect(parseSettingValue("allowDestructiveEdits", "true")).toBe(true)
    expect(parseSettingValue("protectedPatterns", '["a/**","*.pem"]')).toEqual(["a/**", "*.pem"])
    expect(parseSettingValue("executableAllowlist", "git,node")).toEqual(["git", "node"])
    expect(parseSettingValue("executableAllowlist", " git , node ,")).toEqual(["git", "node"])
    expect(parseSettingValue("executableAllowlist", "*")).toEqual(["*"])
    expect(parseSettingValue("protectedPatterns", "secrets/**")).toEqual(["secrets/**"])
    expect(parseSettingValue("permissionMode", "auto")).toBe("auto")
    expect(Either.isLeft(decodeSettings({ permissionMode: parseSettingValue("permissionMode", "auto") }))).toBe(true)
  })
})
