/** The LM Studio plugin entry: `main(context)` over the Node host. */
import type { PluginContext } from "@lmstudio/sdk"
import { openNodeSession } from "../../node/host.ts"
import { makePlugin } from "./plugin.ts"

const plugin = makePlugin((root, settings) => openNodeSession(root, settings))

/** Registers the config schematics, the tools provider and the prompt preprocessor. */
export async function main(context: PluginContext): Promise<void> {
  await plugin.main(context)
}
