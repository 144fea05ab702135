/**
 * `agentic-workspace`: the embedding API. Open a workspace with `openWorkspace({ root, settings, host })`
 * and drive it through the Session (tools, call, preprocess, approvals, decide, close). Also exported:
 * the settings Schema and its keys and defaults, the envelope and error types, and the preprocessor's
 * pieces for hosts that build their own chat channel. `agentic-workspace/mcp` serves a Session over MCP.
 */
export {
  type CallOptions,
  type HostChoice,
  OpenWorkspaceError,
  type OpenWorkspaceOptions,
  openWorkspace,
  type Session,
  type SessionTool,
  type WorkspaceSettings
} from "./session.ts"
export {
  decodeSettings,
  defaultSettings,
  SETTING_KEYS,
  Settings,
  type SettingsInput
} from "../../core/settings/settings.ts"
export {
  type Artifact,
  type Envelope,
  type EnvelopeError,
  type Importance,
  PROTOCOL,
  type Retention
} from "../../core/protocol/envelope.ts"
export { ErrorCode, ToolError } from "../../core/protocol/errors.ts"
export {
  type DecisionCommand,
  formatCommand,
  isPassThrough,
  PASS_THROUGH,
  parseCommand,
  type Preprocessed,
  preprocess
} from "../../core/gate/preprocess.ts"
export type { ApprovalRecord, RecordKind, RecordStatus } from "../../core/gate/records.ts"
export type { ProgressUpdate } from "../../core/services/Progress.ts"
export type { JsonSchemaObject } from "../../core/tools/Tool.ts"
export { VERSION } from "../version.ts"
