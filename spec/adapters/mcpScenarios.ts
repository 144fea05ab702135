/**
 * The MCP scenarios every transport must pass, driven by the SDK's real Client against the real
 * server in a child process: tools/list, each tool's simplest read, a bad call, and a Manual-mode
 * staged call answered through elicitation (accept, decline, cancel) or, without the capability, in
 * the terminal with `agentic-workspace accept`.
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Envelope } from "../../core/protocol/envelope.ts"
import { type Connected, DENO, ENTRY, READ_ACTIONS } from "../support/mcp.ts"
import { makeTempDir, REPO } from "../support/workspace.ts"

/** Connects a client to a server on `root` with `--set` settings; `elicit` declares the capability. */
export type Connect = (
  root: string,
  settings: ReadonlyArray<string>,
  options: { elicit: boolean }
) => Promise<Connected>

interface CallResult {
  readonly content: Array<{ type: string; text?: string }>
  readonly structuredContent?: Record<string, unknown>
  readonly isError?: boolean
}

const runDeno = (args: ReadonlyArray<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(DENO, ["run", "-A", ENTRY, ...args], { cwd: REPO }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : Number((error as { code?: number }).code ?? 1), stdout, stderr })
    )
  )

const call = async (connected: Connected, name: string, args: Record<string, unknown>) =>
  (await connected.client.callTool({ name, arguments: args })) as unknown as CallResult

const envelopeOf = (result: CallResult) => result.structuredContent as unknown as Envelope

const recordTitled = async (root: string, title: string) => {
  const records = JSON.parse(await fs.readFile(path.join(root, ".agentic/approvals/state.json"), "utf8"))
    .records as Array<{
    id: string
    title: string
    status: string
    note?: string
    reason?: string
  }>
  return records.find((record) => record.title === title)
}

/** Registers the scenarios under `describe(name)`. */
export const mcpScenarios = (
  name: string,
  connect: Connect,
  options: { setup?: () => Promise<void>; teardown?: () => Promise<void> } = {}
) =>
  describe(name, () => {
    const open: Array<Connected> = []
    const dirs: Array<string> = []
    const sessions = new Map<string, Promise<{ root: string; connected: Connected }>>()
    /**
     * One server per settings and capability, shared by the cases (server start-up dominates the run
     * time); the cases touch distinct files and find their approval records by id.
     */
    const start = (settings: ReadonlyArray<string>, elicit = true) => {
      const key = `${settings.join(" ")}|${elicit}`
      let session = sessions.get(key)
      if (session === undefined) {
        session = (async () => {
          const root = await makeTempDir("aw-mcp-")
          dirs.push(root)
          await fs.writeFile(path.join(root, "README.md"), "# fixture\n")
          const connected = await connect(root, settings, { elicit })
          open.push(connected)
          return { root, connected }
        })()
        sessions.set(key, session)
      }
      return session
    }
    beforeAll(async () => {
      await options.setup?.()
    })
    afterAll(async () => {
      await Promise.all(open.map((connected) => connected.close().catch(() => undefined)))
      await options.teardown?.()
      await Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true })))
    })

    it("tools/list carries each tool's JSON Schema and annotations that tell the truth, every hint explicit", async () => {
      const { connected } = await start(["permissionMode=0"])
      const { tools } = await connected.client.listTools()
      expect(tools.map((tool) => tool.name)).toContain("workspace_notes")
      for (const tool of tools) {
        expect(tool.inputSchema.type).toBe("object")
        expect(typeof tool.annotations?.readOnlyHint, tool.name).toBe("boolean")
        expect(typeof tool.annotations?.destructiveHint, tool.name).toBe("boolean")
        expect(typeof tool.annotations?.openWorldHint, tool.name).toBe("boolean")
      }
      const byName = new Map(tools.map((tool) => [tool.name, tool]))
      // allowDestructiveEdits is off: no tool that writes may claim to be destructive.
      expect(byName.get("test_gated_write")?.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: false,
        openWorldHint: false
      })
      if (byName.has("workspace_inspect"))
        expect(byName.get("workspace_inspect")!.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false })
      if (byName.has("workspace_edit"))
        expect(byName.get("workspace_edit")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false })
    })

    it("destructiveHint follows allowDestructiveEdits", async () => {
      const { connected } = await start(["permissionMode=2", "allowDestructiveEdits=true"])
      const { tools } = await connected.client.listTools()
      const byName = new Map(tools.map((tool) => [tool.name, tool]))
      expect(byName.get("test_gated_write")?.annotations?.destructiveHint).toBe(true)
      if (byName.has("workspace_edit")) expect(byName.get("workspace_edit")!.annotations?.destructiveHint).toBe(true)
      // The registered set follows the settings, as in the core: no workspace_plan in Auto.
      expect(byName.has("workspace_plan")).toBe(false)
    })

    it("calls each registered tool's simplest read action; the envelope is structuredContent, its summary the text", async () => {
      const { connected } = await start(["permissionMode=0"])
      const { tools } = await connected.client.listTools()
      const missing = tools.map((tool) => tool.name).filter((tool) => READ_ACTIONS[tool] === undefined)
      expect(missing, "add these tools to READ_ACTIONS in spec/support/mcp.ts").toEqual([])
      for (const tool of tools) {
        const entry = READ_ACTIONS[tool.name]!
        const result = await call(connected, tool.name, entry.args)
        const envelope = envelopeOf(result)
        expect(envelope.protocol, tool.name).toBe("agentic-workspace/v1")
        expect(result.content[0], tool.name).toEqual({ type: "text", text: envelope.summary })
        // Issue 17: content carries the data too, as JSON text after the summary (clients that never show
        // structuredContent to the model still give it the data).
        const payload = envelope.data ?? envelope.error?.details
        if (payload !== undefined)
          expect(result.content[result.content.length - 1], tool.name).toEqual({
            type: "text",
            text: JSON.stringify(payload)
          })
        expect(result.isError, tool.name).toBe(!envelope.ok)
        expect(envelope.error?.code, tool.name).not.toBe("INTERNAL_ERROR")
        expect(envelope.error?.code, tool.name).not.toBe("INVALID_INPUT")
        if (entry.ok !== "any") expect(envelope.ok, `${tool.name}: ${envelope.summary}`).toBe(entry.ok)
      }
    })

    it("content contains the data: a read's file text and line numbers are in the text content, not only in structuredContent", async () => {
      const { root, connected } = await start(["permissionMode=0"])
      await fs.writeFile(path.join(root, "content.txt"), "first line\nsecond line\n")
      const result = await call(connected, "workspace_inspect", { action: "read", path: "content.txt" })
      expect(result.isError).toBe(false)
      const text = result.content.map((item) => item.text ?? "").join("\n")
      expect(text).toContain("second line")
      expect(JSON.parse(result.content[result.content.length - 1]!.text!)).toEqual(envelopeOf(result).data)
    })

    it("every tool declares the envelope as outputSchema, and the SDK client validates each result against it", async () => {
      const { connected } = await start(["permissionMode=0"])
      const { tools } = await connected.client.listTools()
      for (const tool of tools)
        expect(tool.outputSchema, tool.name).toMatchObject({
          type: "object",
          properties: { ok: { type: "boolean" }, data: { type: "object" } }
        })
      // The client checks structuredContent against the outputSchema it listed; an invalid result would throw here.
      const result = await call(connected, "workspace_notes", { action: "list" })
      expect(envelopeOf(result).ok).toBe(true)
    })

    it("Plan mode with elicitation: a proposed plan is put to the user before propose returns (the Manual-mode schema), and accepted there it unlocks the next edit", async () => {
      const { root, connected } = await start(["permissionMode=1"])
      connected.elicitation.next = { action: "accept", content: { note: "go ahead" } }
      const asked = connected.elicitation.prompts.length
      const locked = await call(connected, "test_gated_write", {
        action: "write",
        path: "plan-a.txt",
        content: "under plan"
      })
      expect(envelopeOf(locked).error?.code).toBe("APPROVAL_REQUIRED")
      const proposed = await call(connected, "workspace_plan", {
        action: "propose",
        title: "Write plan-a",
        objective: "Show plan elicitation",
        steps: ["write plan-a.txt"]
      })
      // The prompt was answered inside the propose call.
      expect(connected.elicitation.prompts).toHaveLength(asked + 1)
      const prompt = connected.elicitation.prompts[asked]!
      expect(prompt.message).toContain("Write plan-a")
      expect(prompt.message).toContain("write plan-a.txt")
      expect(prompt.requestedSchema).toEqual({
        type: "object",
        properties: { note: expect.objectContaining({ type: "string" }) }
      })
      const envelope = envelopeOf(proposed)
      const planId = (envelope.data as { planId: string }).planId
      expect(envelope.data).toMatchObject({ status: "approved", note: "go ahead" })
      expect(envelope.summary).toContain(`The user accepted plan ${planId}`)
      expect((await recordTitled(root, "Write plan-a"))?.status).toBe("approved")
      const written = await call(connected, "test_gated_write", {
        action: "write",
        path: "plan-a.txt",
        content: "under plan"
      })
      expect(envelopeOf(written)).toMatchObject({ ok: true, data: { written: true } })
      expect(await fs.readFile(path.join(root, "plan-a.txt"), "utf8")).toBe("under plan")
      await call(connected, "workspace_plan", { action: "complete", plan_id: planId })
    })

    it("Plan mode with elicitation: a plan declined in the prompt is denied with the note as its reason; nothing unlocks", async () => {
      const { root, connected } = await start(["permissionMode=1"])
      connected.elicitation.next = { action: "decline", content: { note: "too broad" } }
      const proposed = envelopeOf(
        await call(connected, "workspace_plan", {
          action: "propose",
          title: "Write plan-b",
          objective: "Declined",
          steps: ["write plan-b.txt"]
        })
      )
      expect(proposed.data).toMatchObject({ status: "denied", reason: "too broad" })
      expect(await recordTitled(root, "Write plan-b")).toMatchObject({ status: "denied", reason: "too broad" })
      const refused = envelopeOf(
        await call(connected, "test_gated_write", { action: "write", path: "plan-b.txt", content: "no" })
      )
      expect(refused.error?.code).toBe("APPROVAL_REQUIRED")
    })

    it("without elicitation every reply that needs the user names the terminal command with this root, never only /accept; the user accepts the plan there and the edit runs", async () => {
      const { root, connected } = await start(["permissionMode=1"], false)
      const locked = envelopeOf(
        await call(connected, "test_gated_write", { action: "write", path: "plan-c.txt", content: "terminal plan" })
      )
      expect(locked.error?.code).toBe("APPROVAL_REQUIRED")
      expect(locked.summary).toContain(`npx agentic-workspace accept <plan_id> --root ${root}`)
      expect(locked.summary).not.toMatch(/(wait for|reply|replies) \/accept/)
      const proposed = envelopeOf(
        await call(connected, "workspace_plan", {
          action: "propose",
          title: "Write plan-c",
          objective: "Terminal",
          steps: ["write plan-c.txt"]
        })
      )
      const planId = (proposed.data as { planId: string }).planId
      expect(proposed.data).toMatchObject({ status: "pending" })
      for (const text of [proposed.summary, (proposed.data as { instruction: string }).instruction]) {
        expect(text).toContain(`npx agentic-workspace accept ${planId} --root ${root}`)
        expect(text).toContain(`npx agentic-workspace deny ${planId} --root ${root} <reason>`)
        expect(text).not.toContain(`/accept ${planId}`)
      }
      const waiting = envelopeOf(
        await call(connected, "test_gated_write", { action: "write", path: "plan-c.txt", content: "terminal plan" })
      )
      expect(waiting.error?.code).toBe("APPROVAL_REQUIRED")
      expect(waiting.error?.message).toContain(`npx agentic-workspace accept ${planId} --root ${root}`)
      const decided = await runDeno(["accept", planId, "--root", root])
      expect(decided.code, decided.stderr).toBe(0)
      const written = envelopeOf(
        await call(connected, "test_gated_write", { action: "write", path: "plan-c.txt", content: "terminal plan" })
      )
      expect(written).toMatchObject({ ok: true, data: { written: true } })
      await call(connected, "workspace_plan", { action: "complete", plan_id: planId })
    })

    it("the server instructions name the client prompt and the terminal command, not /accept alone", async () => {
      const { connected } = await start(["permissionMode=0"])
      const instructions = connected.client.getInstructions() ?? ""
      expect(instructions).toContain("approval prompt")
      expect(instructions).toContain("npx agentic-workspace accept <id> --root")
      expect(instructions).toContain("There is no /accept command")
    })

    it("a bad call is isError with the envelope's code", async () => {
      const { connected } = await start(["permissionMode=0"])
      const bad = await call(connected, "workspace_notes", { action: "nope" })
      expect(bad.isError).toBe(true)
      expect(envelopeOf(bad)).toMatchObject({ ok: false, operation: "notes.nope", error: { code: "INVALID_INPUT" } })
      expect(bad.content[0]!.text).toMatch(/^INVALID_INPUT: Unknown action "nope"/)
      const unknown = await call(connected, "workspace_nothing", { action: "list" })
      expect(unknown.isError).toBe(true)
      expect(envelopeOf(unknown).error?.code).toBe("INVALID_INPUT")
    })

    it("Manual mode: accept through elicitation approves and runs the operation in the same tools/call, consuming the approval", async () => {
      const { root, connected } = await start(["permissionMode=0"])
      connected.elicitation.next = { action: "accept", content: { note: "looks right" } }
      const asked = connected.elicitation.prompts.length
      const result = await call(connected, "test_gated_write", { action: "write", path: "a.txt", content: "hello" })
      expect(connected.elicitation.prompts).toHaveLength(asked + 1)
      const prompt = connected.elicitation.prompts[asked]!
      expect(prompt.message).toContain("testwrite.write: Write a.txt")
      expect(prompt.message).toContain("Destructive: no")
      expect(prompt.message).toContain("+hello")
      expect(prompt.requestedSchema).toEqual({
        type: "object",
        properties: { note: expect.objectContaining({ type: "string" }) }
      })
      expect(result.isError).toBe(false)
      expect(envelopeOf(result)).toMatchObject({ ok: true, operation: "testwrite.write", data: { written: true } })
      expect(result.content[1]!.text).toMatch(/The user approved approval_\w+ .*Note: looks right/)
      expect(await fs.readFile(path.join(root, "a.txt"), "utf8")).toBe("hello")
      expect(await recordTitled(root, "Write a.txt")).toMatchObject({ status: "consumed", note: "looks right" })
    })

    it("Manual mode: decline denies the record; the identical call then gets APPROVAL_DENIED", async () => {
      const { root, connected } = await start(["permissionMode=0"])
      connected.elicitation.next = { action: "decline" }
      const asked = connected.elicitation.prompts.length
      const result = await call(connected, "test_gated_write", { action: "write", path: "b.txt", content: "no" })
      expect(result.isError).toBe(true)
      expect(envelopeOf(result).error?.code).toBe("APPROVAL_DENIED")
      await expect(fs.access(path.join(root, "b.txt"))).rejects.toThrow()
      const again = await call(connected, "test_gated_write", { action: "write", path: "b.txt", content: "no" })
      expect(envelopeOf(again).error?.code).toBe("APPROVAL_DENIED")
      expect(connected.elicitation.prompts).toHaveLength(asked + 1)
      expect((await recordTitled(root, "Write b.txt"))?.status).toBe("denied")
    })

    it("Manual mode: cancel leaves the approval pending and nothing runs", async () => {
      const { root, connected } = await start(["permissionMode=0"])
      connected.elicitation.next = { action: "cancel" }
      const result = await call(connected, "test_gated_write", { action: "write", path: "c.txt", content: "later" })
      expect(result.isError).toBe(false)
      expect(envelopeOf(result).data).toMatchObject({
        status: "pending_approval",
        approval: { kind: "transaction", destructive: false }
      })
      await expect(fs.access(path.join(root, "c.txt"))).rejects.toThrow()
      expect((await recordTitled(root, "Write c.txt"))?.status).toBe("pending")
    })

    it("without the elicitation capability the call stays pending_approval; the user decides with agentic-workspace accept, then the resume call runs", async () => {
      const { root, connected } = await start(["permissionMode=0"], false)
      const staged = envelopeOf(
        await call(connected, "test_gated_write", { action: "write", path: "d.txt", content: "terminal" })
      )
      const approval = staged.data as {
        status: string
        approval: { id: string; resume: { tool: string; arguments: Record<string, unknown> } }
      }
      expect(approval.status).toBe("pending_approval")
      // The reply names the way to decide in this host: the terminal command with this root.
      expect(staged.summary).toContain(`npx agentic-workspace accept ${approval.approval.id} --root ${root}`)
      expect(staged.summary).not.toContain(`/accept ${approval.approval.id}`)
      // The model's input cannot approve: the same call again only returns the same pending record.
      const again = envelopeOf(
        await call(connected, "test_gated_write", { action: "write", path: "d.txt", content: "terminal" })
      )
      expect((again.data as { approval: { id: string } }).approval.id).toBe(approval.approval.id)
      // The user's terminal: the one entry under Deno (cheaper to start than tsx), deciding in the store the
      // server process shares, whatever host that server runs on.
      const decided = await runDeno(["accept", approval.approval.id, "ok", "--root", root, "--set", "permissionMode=0"])
      expect(decided.code, decided.stderr).toBe(0)
      expect(decided.stdout).toContain(`The user accepted ${approval.approval.id}`)
      const resumed = envelopeOf(
        await call(connected, approval.approval.resume.tool, approval.approval.resume.arguments)
      )
      expect(resumed).toMatchObject({ ok: true, data: { written: true } })
      expect(await fs.readFile(path.join(root, "d.txt"), "utf8")).toBe("terminal")
    })
  })
