/** The Node host's layers for `agentic-workspace verify --host …`: memory (fresh per sequence) or node (a fresh temporary directory). */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { memoryLayer } from "../embed/verify.ts"
import type { VerifyLayers } from "../verify.ts"
import { layer } from "./host.ts"

export const nodeVerifyLayers: VerifyLayers = async (host) => {
  if (host === "memory") return { layer: memoryLayer, cleanup: async () => {} }
  if (host === "deno")
    return "the Deno host needs Deno: run `deno run -A bin/agentic-workspace.js verify --host deno` (this is Node.js)."
  const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "agentic-verify-")))
  return { layer: layer(dir), cleanup: () => fs.rm(dir, { recursive: true, force: true }) }
}
