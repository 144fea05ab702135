/** Reading a setting given on a command line or in a plugin config, with no import: the command's entry parses its line before the rest loads. */

/**
 * Reads one `key=value` override as the CLI and plugin configs give it: JSON when the value parses as
 * JSON, else the raw string; a list setting also takes a comma-separated string.
 */
export const parseSettingValue = (key: string, raw: string): unknown => {
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    value = raw
  }
  if (
    (key === "protectedPatterns" ||
      key === "excludePatterns" ||
      key === "executableAllowlist" ||
      key === "workspaceCapabilities" ||
      key === "languageServers") &&
    typeof value === "string"
  ) {
    return value
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part.length > 0)
  }
  return value
}
