/**
 * One of the processes of the two-process spec: on a shared workspace (Manual mode) it stages
 * approvals through the real gate, proposes plans, accepts even approvals and denies odd ones by id,
 * runs each accepted call (consuming it), and prints what it did as JSON.
 *   node --import tsx spec/support/twoProcessWorker.ts ROOT ROLE COUNT
 */
import { preprocess } from "../../core/gate/preprocess.ts"
import { openNodeWorkspace } from "../../adapters/node/host.ts"
import { callGated } from "./gatedTool.ts"

const [root, role, count] = process.argv.slice(2) as [string, string, string]
const opened = await openNodeWorkspace(root, { permissionMode: 0 })
if ("_tag" in opened) throw new Error(opened.reason)
const approvals: Array<{ id: string; status: string; path: string }> = []
const plans: Array<string> = []
for (let index = 0; index < Number(count); index++) {
  const path = `${role}-${index}.txt`
  const staged = await callGated(opened, { action: "write", path, content: `${role} ${index}` })
  const id = (staged.data as { approval: { id: string } }).approval.id
  const proposed = await opened.call("workspace_plan", {
    action: "propose",
    title: `${role} plan ${index}`,
    objective: "o",
    steps: ["s"]
  })
  plans.push((proposed.data as { planId: string }).planId)
  const verb = index % 2 === 0 ? "accept" : "deny"
  const decided = await opened.run(preprocess(`/${verb} ${id} by ${role}`))
  if (decided.decided === undefined) throw new Error(`not decided: ${decided.text}`)
  if (verb === "accept") {
    const ran = await callGated(opened, { action: "write", path, content: `${role} ${index}` })
    if (!ran.ok) throw new Error(`resume failed: ${ran.summary}`)
    approvals.push({ id, status: "consumed", path })
  } else approvals.push({ id, status: "denied", path })
}
await opened.dispose()
process.stdout.write(JSON.stringify({ approvals, plans }))
