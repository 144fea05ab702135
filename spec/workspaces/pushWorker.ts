/**
 * The process a kill spec kills: on ROOT it reads the status, stages push REQUEST_ID, accepts it as the
 * user, arms the git wrapper (ARM file) and runs the confirmed request, printing the envelope as JSON.
 *   node --import tsx spec/workspaces/pushWorker.ts ROOT REQUEST_ID ARM
 */
import * as fs from "node:fs"
import { preprocess } from "../../core/gate/preprocess.ts"
import { openNodeWorkspace } from "../../adapters/node/host.ts"

const [root, requestId, arm] = process.argv.slice(2) as [string, string, string]
const opened = await openNodeWorkspace(root, { permissionMode: 2 })
if ("_tag" in opened) throw new Error(opened.reason)
const status = await opened.call("get_workspace_status", {})
const contextId = (status.data as { context_id: string }).context_id
const args = { action: "push", context_id: contextId, request_id: requestId, remote: "origin", branch: "main" }
const staged = await opened.call("workspace_action", args)
const approval = (staged.data as { approval?: { id: string } } | undefined)?.approval
if (approval !== undefined) await opened.run(preprocess(`/accept ${approval.id}`))
fs.writeFileSync(arm, "armed")
const ran = await opened.call("workspace_action", args)
process.stdout.write(JSON.stringify(ran))
await opened.dispose()
