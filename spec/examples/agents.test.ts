/**
 * Issue 18, "Examples that run": examples/node-agent.ts and examples/deno-agent.ts against the scripted
 * chat server. The model is asked to create a file; in Manual mode the edit is staged; the user's "/accept"
 * goes through session.preprocess, whose approval block tells the model the exact call to resume with; the
 * model makes it and the file exists. The examples print the tools and every envelope.
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { type ChatRequest, type ScriptedReply, startChatServer } from "../support/chatServer.ts"
import { DENO } from "../support/mcp.ts"
import { makeTempDir, REPO } from "../support/workspace.ts"

const dirs: Array<string> = []
afterAll(async () => {
  await Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true })))
})

/** The scripted model: propose the file, wait after staging, resume exactly what the approval block says. */
const script = (request: ChatRequest): ScriptedReply => {
  const last = request.messages[request.messages.length - 1]!
  if (last.role === "tool") {
    const envelope = JSON.parse(last.content ?? "{}") as { data?: { status?: string }; summary?: string }
    return {
      text:
        envelope.data?.status === "pending_approval"
          ? "I staged the file; please /accept it."
          : `Done: ${envelope.summary}`
    }
  }
  const resume = /Resume now with exactly this call: (\w+) (\{.*\})/.exec(last.content ?? "")
  if (resume !== null) return { calls: [{ name: resume[1]!, arguments: JSON.parse(resume[2]!) }] }
  if ((last.content ?? "").startsWith("Create hello.txt")) {
    return {
      calls: [
        {
          name: "workspace_edit",
          arguments: {
            action: "apply",
            operations: [{ type: "create", path: "hello.txt", content: "hello from the agent\n" }]
          }
        }
      ]
    }
  }
  return { text: "I do not know what to do." }
}

const run = (command: string, args: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(command, args, { cwd: REPO, env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : Number((error as { code?: number }).code ?? 1), stdout, stderr })
    )
  })

const agents: ReadonlyArray<{
  readonly name: string
  readonly command: string
  readonly args: (root: string) => Array<string>
}> = [
  {
    name: "examples/node-agent.ts",
    command: process.execPath,
    args: (root) => ["--import", "tsx", "examples/node-agent.ts", "--root", root]
  },
  {
    name: "examples/deno-agent.ts",
    command: DENO,
    args: (root) => ["run", "-A", "examples/deno-agent.ts", "--root", root]
  }
]

describe.each(agents)("$name: an agent loop against an OpenAI-compatible endpoint", ({ command, args }) => {
  it("lists the tools, forwards tool calls to session.call, passes /accept through session.preprocess, prints envelopes", async () => {
    const root = await makeTempDir("aw-example-")
    dirs.push(root)
    const chat = await startChatServer(script)
    try {
      const result = await run(command, [...args(root), "Create hello.txt saying hello", "/accept"], {
        OPENAI_BASE_URL: chat.baseUrl,
        MODEL: "scripted"
      })
      expect(result.code, result.stderr).toBe(0)
      // The tool list the model was given: every registered tool, with its JSON Schema.
      const offered = chat.requests[0]!.tools!.map((tool) => tool.function.name)
      expect(offered).toContain("workspace_edit")
      expect(result.stdout).toContain(`tools: ${offered.join(", ")}`)
      // The staged envelope, then the accepted commit, printed as envelopes.
      const printed = result.stdout
        .split("\n")
        .filter((line) => line.startsWith("workspace_edit -> "))
        .map((line) => JSON.parse(line.slice("workspace_edit -> ".length)))
      expect(
        printed.map((envelope) => [envelope.operation, envelope.data?.status ?? envelope.data?.committed])
      ).toEqual([
        ["edit.apply", "pending_approval"],
        ["edit.commit", true]
      ])
      // What the model read for "/accept": the preprocessor's approval block, not the raw command.
      const accepted = chat.requests
        .map((request) => request.messages[request.messages.length - 1]!)
        .find((message) => message.role === "user" && (message.content ?? "").includes("<agentic-approval>"))
      expect(accepted?.content).toContain("The user accepted approval_")
      expect(await fs.readFile(path.join(root, "hello.txt"), "utf8")).toBe("hello from the agent\n")
      expect(result.stdout).toContain("assistant: Done: ")
    } finally {
      await chat.close()
    }
  })
})
