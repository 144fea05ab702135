/**
 * workspace_agent on the Deno host (issue 16, "Bound on Node and Deno"): the host lists the tool, and a
 * run goes on in its own Deno worker process (DenoRunWorkers: Deno.Command, detached), whose model calls
 * reach a scripted chat-completions server on 127.0.0.1 (the one stand-in for a model) through Deno's
 * fetch (the server sees Deno's user-agent). kill -9 of the worker mid-run: status says interrupted, and
 * start with the same idempotency_key resumes and completes without replaying the call. cancel stops the
 * worker. Run by `deno test` from `npm test`.
 */
import { openDenoWorkspace } from "../../../adapters/deno/host.ts"

const assert = (condition: boolean, message: string) => {
  if (!condition) throw new Error(message)
}

type Call = { name: string; arguments: unknown }
type Reply = ({ text: string } | { calls: ReadonlyArray<Call> }) & { delayMs?: number }
type Seen = {
  userAgent: string
  body: { messages: Array<{ role: string }>; tools?: Array<{ function: { name: string } }> }
}

const turnOf = (body: Seen["body"]) => body.messages.filter((message) => message.role === "assistant").length

/** The scripted server: the reply for each turn (by the number of assistant turns so far). */
const withModel = async (replies: ReadonlyArray<Reply>, fn: (baseUrl: string, seen: Array<Seen>) => Promise<void>) => {
  const seen: Array<Seen> = []
  let ids = 0
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    const body = (await request.json()) as Seen["body"]
    seen.push({ userAgent: request.headers.get("user-agent") ?? "", body })
    const reply = replies[turnOf(body)] ?? { text: "done" }
    if (reply.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, reply.delayMs))
    const message =
      "text" in reply
        ? { role: "assistant", content: reply.text }
        : {
            role: "assistant",
            content: null,
            tool_calls: reply.calls.map((call) => ({
              id: `call_${++ids}`,
              type: "function",
              function: { name: call.name, arguments: JSON.stringify(call.arguments) }
            }))
          }
    return Response.json({ choices: [{ index: 0, message, finish_reason: "text" in reply ? "stop" : "tool_calls" }] })
  })
  try {
    await fn(`http://127.0.0.1:${server.addr.port}/v1`, seen)
  } finally {
    await server.shutdown()
  }
}

const open = async (baseUrl: string, settings: Record<string, unknown> = {}) => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "aw-deno-agent-" }))
  const opened = await openDenoWorkspace(root, {
    enableSubAgents: true,
    permissionMode: 2,
    modelBaseUrl: baseUrl,
    modelId: "scripted",
    ...settings
  })
  if ("_tag" in opened) throw new Error(opened.reason)
  const call = async (args: Record<string, unknown>) =>
    (await opened.call("workspace_agent", args)) as {
      ok: boolean
      data: Record<string, any>
      error?: unknown
      summary: string
    }
  return {
    root,
    runtime: opened,
    call,
    transcript: async (runId: string) =>
      (await Deno.readTextFile(`${root}/.agentic/runs/${runId}/transcript.jsonl`))
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as Record<string, any>),
    waitFor: async (runId: string, until: (status: string) => boolean, ms = 60_000) => {
      const deadline = Date.now() + ms
      while (true) {
        const status = await call({ action: "status", run_id: runId })
        if (until(status.data["status"]) || Date.now() > deadline) return status
        await new Promise((resolve) => setTimeout(resolve, 150))
      }
    },
    dispose: async () => {
      await opened.dispose()
      await Deno.remove(root, { recursive: true })
    }
  }
}

const alive = (pid: number) => {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`)
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0]
    return state !== "Z" && state !== "X"
  } catch {
    return false
  }
}

const readPreviewFinish: ReadonlyArray<Reply> = [
  { calls: [{ name: "workspace_inspect", arguments: { action: "read", path: "notes.txt" } }] },
  {
    calls: [
      {
        name: "workspace_edit",
        arguments: { action: "preview", operations: [{ type: "create", path: "out.txt", content: "hello\n" }] }
      }
    ]
  },
  {
    calls: [
      {
        name: "finish_run",
        arguments: {
          summary: "Read notes and planned out.txt",
          evidence: ["notes.txt read"],
          remaining_work: [],
          confidence: 0.9
        }
      }
    ]
  }
]

Deno.test({
  name: "deno: workspace_agent is listed; run completes in a Deno worker process whose model calls go through Deno's fetch",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withModel(readPreviewFinish, async (baseUrl, seen) => {
      const ws = await open(baseUrl)
      try {
        assert(
          ws.runtime.registry.list().some((tool) => tool.name === "workspace_agent"),
          "workspace_agent is listed on Deno"
        )
        await Deno.writeTextFile(`${ws.root}/notes.txt`, "some notes\n")
        const result = await ws.call({
          action: "run",
          objective: "Read notes.txt and plan out.txt",
          commit_edits: false
        })
        assert(result.ok, JSON.stringify(result))
        const data = result.data
        assert(data["status"] === "completed", JSON.stringify(data))
        assert(data["summary"] === "Read notes and planned out.txt" && data["confidence"] === 0.9, JSON.stringify(data))
        assert(data["statePath"] === `.agentic/runs/${data["runId"]}/state.json`, String(data["statePath"]))
        assert(
          data["plannedTransactions"].length === 1 &&
            data["evidence"].some((line: string) => line.includes(data["plannedTransactions"][0])),
          JSON.stringify(data)
        )
        // commit_edits=false: the tree outside .agentic/ is unchanged
        let outExists = true
        await Deno.stat(`${ws.root}/out.txt`).catch(() => (outExists = false))
        assert(!outExists, "out.txt was not written")
        // every model request came from a Deno process (the worker), not from Node
        assert(seen.length === 3, `three model turns, saw ${seen.length}`)
        for (const request of seen) assert(request.userAgent.startsWith("Deno/"), `user-agent ${request.userAgent}`)
        const offered = seen[0]!.body.tools!.map((tool) => tool.function.name)
        assert(offered.includes("finish_run") && !offered.includes("workspace_agent"), offered.join(","))
        const transcript = await ws.transcript(data["runId"])
        const results = transcript.filter((entry) => entry["type"] === "tool_result").map((entry) => entry["name"])
        assert(
          JSON.stringify(results) === JSON.stringify(["workspace_inspect", "workspace_edit", "finish_run"]),
          JSON.stringify(results)
        )
        // the worker was a Deno process of its own, and it has ended
        const state = JSON.parse(await Deno.readTextFile(`${ws.root}/${data["statePath"]}`))
        assert(typeof state.worker?.pid === "number" && state.worker.pid !== Deno.pid, JSON.stringify(state.worker))
      } finally {
        await ws.dispose()
      }
    })
})

Deno.test({
  name: "deno durability: kill -9 of the worker mid-run reports interrupted; start with the same key resumes and completes, the edit not replayed",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withModel(
      [
        {
          calls: [
            {
              name: "workspace_edit",
              arguments: { action: "apply", operations: [{ type: "create", path: "made.txt", content: "once\n" }] }
            }
          ]
        },
        // the second turn is held back: the worker is killed while it waits
        {
          calls: [{ name: "finish_run", arguments: { summary: "made made.txt", evidence: ["made.txt"] } }],
          delayMs: 4000
        },
        { calls: [{ name: "finish_run", arguments: { summary: "made made.txt", evidence: ["made.txt"] } }] }
      ],
      async (baseUrl, seen) => {
        const ws = await open(baseUrl)
        try {
          const started = await ws.call({ action: "start", objective: "create made.txt", idempotency_key: "deno-k1" })
          assert(started.ok && started.data["status"] === "running", JSON.stringify(started))
          const runId = started.data["runId"] as string
          const deadline = Date.now() + 60_000
          while (seen.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
          assert(seen.length >= 2, "the worker reached its second model turn")
          const state = JSON.parse(await Deno.readTextFile(`${ws.root}/.agentic/runs/${runId}/state.json`))
          const pid = state.worker.pid as number
          assert(alive(pid), "the worker runs")
          Deno.kill(pid, "SIGKILL")
          const interrupted = await ws.waitFor(runId, (status) => status !== "running")
          assert(interrupted.data["status"] === "interrupted", JSON.stringify(interrupted.data))
          const resumed = await ws.call({ action: "start", objective: "create made.txt", idempotency_key: "deno-k1" })
          assert(resumed.ok && resumed.data["runId"] === runId, JSON.stringify(resumed))
          const done = await ws.waitFor(runId, (status) => status !== "running")
          assert(done.data["status"] === "completed", JSON.stringify(done.data))
          assert((await Deno.readTextFile(`${ws.root}/made.txt`)) === "once\n", "made.txt written once")
          const transcript = await ws.transcript(runId)
          const edits = transcript.filter(
            (entry) => entry["type"] === "tool_call" && entry["name"] === "workspace_edit"
          )
          assert(edits.length === 1, `one workspace_edit call in the transcript, saw ${edits.length}`)
          assert(
            transcript.some((entry) => entry["type"] === "resumed"),
            "the transcript records the resume"
          )
        } finally {
          await ws.dispose()
        }
      }
    )
})

Deno.test({
  name: "deno: cancel stops the running worker and records cancelled",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withModel([{ text: "held back past the cancel", delayMs: 6000 }], async (baseUrl, seen) => {
      const ws = await open(baseUrl)
      try {
        const started = await ws.call({ action: "start", objective: "wait" })
        const runId = started.data["runId"] as string
        const deadline = Date.now() + 60_000
        while (seen.length < 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
        const pid = JSON.parse(await Deno.readTextFile(`${ws.root}/.agentic/runs/${runId}/state.json`)).worker
          .pid as number
        const cancelled = await ws.call({ action: "cancel", run_id: runId })
        assert(cancelled.ok && cancelled.data["status"] === "cancelled", JSON.stringify(cancelled))
        assert(!alive(pid), "the worker is gone")
        const again = await ws.call({ action: "status", run_id: runId })
        assert(again.data["status"] === "cancelled", JSON.stringify(again.data))
      } finally {
        await ws.dispose()
      }
    })
})
