/** The package version every host reports (`--version`, MCP serverInfo); a spec keeps it equal to package.json. */
export const VERSION = "0.1.0"
