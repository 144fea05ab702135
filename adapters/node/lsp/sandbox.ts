/** How a language server is confined: bubblewrap's or sandbox-exec's argv, and the environment it gets. */
import * as fs from "node:fs"
import * as path from "node:path"
import { decideSandbox } from "../../../core/services/Sandbox.ts"
import { languageServerFailure } from "../../../core/services/LanguageServers.ts"
import type { Settings } from "../../../core/settings/settings.ts"
import { bwrapPath, SANDBOX_HOME, sandboxSupport } from "../sandbox.ts"
import { Failed, inside } from "./common.ts"
import { SERVER_HEAP_MB } from "./packages.ts"

/**
 * The bubblewrap argv of a language server: the whole filesystem read-only (the root included: a server
 * writes nothing of the project), a fresh /dev and /proc, a private /tmp (with HOME in it) that vanishes with
 * the server, the root and the server's packages bound read-only again when they live under /tmp, the
 * approval key's folder hidden, no network, new PID, IPC and UTS namespaces, killed with its parent.
 */
export const languageServerBwrapArgs = (
  bwrap: string,
  root: string,
  readable: ReadonlyArray<string>,
  hidden: ReadonlyArray<string>
): Array<string> => {
  const argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
  argv.push("--dir", SANDBOX_HOME)
  for (const dir of [root, ...readable, path.dirname(process.execPath)])
    if (inside("/tmp", dir)) argv.push("--ro-bind", dir, dir)
  for (const folder of hidden) {
    const underTmp = inside("/tmp", folder) && !inside(root, folder)
    if (!underTmp && fs.existsSync(folder)) argv.push("--tmpfs", folder, "--remount-ro", folder)
  }
  argv.push("--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--new-session")
  argv.push("--chdir", root, "--")
  return argv
}

/** How a server is confined on this host under the commandSandbox setting, or why it is refused. */
export const confinement = async (
  settings: Settings,
  root: string,
  readable: ReadonlyArray<string>
): Promise<{ prefix: ReadonlyArray<string>; sandboxed: boolean; reason?: string } | Failed> => {
  const support = await sandboxSupport()
  const decision = decideSandbox(settings.commandSandbox, support)
  if ("code" in decision) {
    return new Failed({
      ...languageServerFailure(
        "unavailable",
        `commandSandbox is "required" but a language server cannot be sandboxed here: ${support.reason ?? "no sandbox"}. Nothing was started. Ask the user to install bubblewrap (Linux) or to set commandSandbox to "auto" or "off".`
      ),
      sandboxUnavailable: support.reason ?? "no sandbox"
    })
  }
  if (decision._tag === "Unconfined") return { prefix: [], sandboxed: false, reason: decision.reason }
  if (support.mechanism === "bwrap")
    return { prefix: languageServerBwrapArgs(bwrapPath(), root, readable, support.hidden), sandboxed: true }
  // macOS: writes only to the temporary folders, the key's folder unreadable, no network.
  const profile = [
    "(version 1)",
    "(allow default)",
    "(deny file-write*)",
    '(allow file-write* (subpath "/private/tmp") (subpath "/private/var/folders") (literal "/dev/null"))',
    ...support.hidden.map((folder) => `(deny file-read* file-write* (subpath ${JSON.stringify(folder)}))`),
    "(deny network*)",
    "(allow network* (remote unix-socket))"
  ].join("\n")
  return { prefix: ["/usr/bin/sandbox-exec", "-p", profile], sandboxed: true }
}

/** The environment a server gets: no secrets of the host's, only what node and a Python lookup need. */
export const serverEnv = (sandboxed: boolean): Record<string, string> => ({
  PATH: process.env["PATH"] ?? "/usr/local/bin:/usr/bin:/bin",
  LANG: process.env["LANG"] ?? "C.UTF-8",
  HOME: sandboxed ? SANDBOX_HOME : (process.env["HOME"] ?? "/tmp"),
  TMPDIR: "/tmp",
  NODE_OPTIONS: `--max-old-space-size=${SERVER_HEAP_MB}`
})
