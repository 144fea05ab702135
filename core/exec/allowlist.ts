/**
 * The executable allowlist (the executableAllowlist setting), one rule for every tool that runs a
 * program: workspace_command's executables and workspace_vcs's git and gh.
 */
import { allowlistName } from "./resolve.ts"

export { allowlistName }

/** Whether the allowlist lets `executable` run: "*" allows any; a bare name is compared by name, a path only by its exact text. */
export const allowed = (allowlist: ReadonlyArray<string>, executable: string, platform: string): boolean => {
  if (allowlist.includes("*")) return true
  if (executable.includes("/") || executable.includes("\\")) return allowlist.includes(executable)
  const name = allowlistName(executable, platform)
  return allowlist.some((entry) => allowlistName(entry, platform) === name)
}
