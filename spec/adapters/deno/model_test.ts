// The Model port bound on Deno: a chat completion with a tool call from a loopback chat-completions server, streaming and not.
import * as Effect from "effect/Effect"
import { denoModel } from "../../../adapters/deno/DenoModel.ts"

const assertEquals = (actual: unknown, expected: unknown) => {
  if (JSON.stringify(actual) !== JSON.stringify(expected))
    throw new Error(`expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`)
}

for (const stream of [false, true]) {
  Deno.test(`Deno Model port: ${stream ? "streaming" : "non-streaming"} completion with a tool call`, async () => {
    const args = JSON.stringify({ summary: "s" })
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () =>
      stream
        ? new Response(
            [
              {
                choices: [
                  {
                    index: 0,
                    delta: {
                      tool_calls: [
                        {
                          index: 0,
                          id: "c1",
                          type: "function",
                          function: { name: "finish_run", arguments: args.slice(0, 4) }
                        }
                      ]
                    }
                  }
                ]
              },
              {
                choices: [
                  {
                    index: 0,
                    delta: { tool_calls: [{ index: 0, function: { arguments: args.slice(4) } }] },
                    finish_reason: "tool_calls"
                  }
                ]
              }
            ]
              .map((event) => `data: ${JSON.stringify(event)}\n\n`)
              .join("") + "data: [DONE]\n\n",
            { headers: { "content-type": "text/event-stream" } }
          )
        : Response.json({
            choices: [
              {
                index: 0,
                message: {
                  role: "assistant",
                  content: null,
                  tool_calls: [{ id: "c1", type: "function", function: { name: "finish_run", arguments: args } }]
                },
                finish_reason: "tool_calls"
              }
            ]
          })
    )
    try {
      const reply = await Effect.runPromise(
        denoModel.complete({
          baseUrl: `http://127.0.0.1:${server.addr.port}/v1`,
          model: "m",
          messages: [{ role: "user", content: "hi" }],
          tools: [],
          stream,
          timeoutMs: 5000
        })
      )
      assertEquals(reply.toolCalls, [{ id: "c1", name: "finish_run", arguments: args }])
    } finally {
      await server.shutdown()
    }
  })
}
