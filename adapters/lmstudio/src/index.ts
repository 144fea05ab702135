/**
 * The LM Studio plugin entry: `main(context)` over the Node host. Sub-agent runs (workspace_agent) reach
 * the model through the plugin's own client and the model loaded in LM Studio (model.ts), their loop
 * running in the plugin's process beside that client (workers.ts).
 */
import type { PluginContext } from "@lmstudio/sdk"
import { openNodeSession } from "../../node/host.ts"
import { lmstudioModel } from "./model.ts"
import { makePlugin } from "./plugin.ts"
import { inProcessWorkers } from "./workers.ts"

const plugin = makePlugin((root, settings, ctl) =>
  openNodeSession(root, settings, undefined, { workers: inProcessWorkers(lmstudioModel(ctl.client)) })
)

/** Registers the config schematics, the tools provider and the prompt preprocessor. */
export async function main(context: PluginContext): Promise<void> {
  await plugin.main(context)
}
