/** The package version, as `--version`, the MCP server info and the embedding API report it (spec/adapters/package.test.ts keeps it equal to package.json's). */
export const VERSION = "0.1.0"
