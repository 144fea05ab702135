/**
 * A small agent on Node: the workspace tools in a chat loop against any OpenAI-compatible endpoint
 * (LM Studio, llama.cpp, vLLM, OpenAI). Each argument is one user message; every message goes through
 * session.preprocess first, so "/accept" and "/deny" decide what the model staged.
 *
 *   OPENAI_BASE_URL=http://127.0.0.1:1234/v1 MODEL=qwen3-8b \
 *     npx tsx examples/node-agent.ts --root . "Create hello.txt saying hi" "/accept"
 */
import { type Envelope, openWorkspace } from "agentic-workspace"

interface ToolCall {
  readonly id: string
  readonly function: { readonly name: string; readonly arguments: string }
}
type Message =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ReadonlyArray<ToolCall> }
  | { role: "tool"; tool_call_id: string; content: string }

const args = process.argv.slice(2)
const rootAt = args.indexOf("--root")
const root = rootAt === -1 ? process.cwd() : args.splice(rootAt, 2)[1]!
const baseUrl = process.env["OPENAI_BASE_URL"] ?? "http://127.0.0.1:1234/v1"
const model = process.env["MODEL"] ?? "local-model"

const session = await openWorkspace({ root, settings: { permissionMode: 0 }, host: "node" })
const tools = (await session.tools()).map((tool) => ({ type: "function" as const, function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } }))
console.log(`tools: ${tools.map((tool) => tool.function.name).join(", ")}`)

const messages: Array<Message> = [{ role: "system", content: "You work in the user's project through the workspace tools. Follow each envelope's summary." }]

const complete = async (): Promise<Extract<Message, { role: "assistant" }>> => {
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${process.env["OPENAI_API_KEY"] ?? "none"}` },
    body: JSON.stringify({ model, messages, tools })
  })
  if (!response.ok) throw new Error(`the model endpoint answered ${response.status}: ${await response.text()}`)
  const body = (await response.json()) as { choices: Array<{ message: Extract<Message, { role: "assistant" }> }> }
  return body.choices[0]!.message
}

try {
  for (const input of args) {
    // /accept, /deny and the permission-mode block: the preprocessor rewrites what the model reads.
    messages.push({ role: "user", content: (await session.preprocess(input)).text })
    for (let step = 0; step < 8; step++) {
      const reply = await complete()
      messages.push(reply)
      if (reply.tool_calls === undefined || reply.tool_calls.length === 0) {
        console.log(`assistant: ${reply.content ?? ""}`)
        break
      }
      for (const call of reply.tool_calls) {
        let envelope: Envelope
        try {
          envelope = await session.call(call.function.name, JSON.parse(call.function.arguments))
        } catch {
          envelope = await session.call(call.function.name, call.function.arguments) // not JSON: the envelope says so
        }
        console.log(`${call.function.name} -> ${JSON.stringify(envelope)}`)
        messages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(envelope) })
      }
    }
  }
} finally {
  await session.close()
}
