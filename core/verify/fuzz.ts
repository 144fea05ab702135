/**
 * The input fuzzer: every registered tool's every action, called with inputs drawn from arbitraries
 * derived from the action's Schema (effect/Arbitrary) and with malformed variants of them (wrong types,
 * extra fields, huge strings, unicode, deep nesting, missing or unknown actions), in every permission mode.
 * Every reply must decode with the envelope Schema, none may be INTERNAL_ERROR, and a refused call must
 * write nothing to the workspace: its tree (every file's bytes, every directory) hashes the same before and
 * after. .agentic/ is left out of the hash: it is the plugin's own state, and a gated call refused by the
 * mode still records its planned transaction there by design (the approval's resume call names it).
 * Host-free: it runs over whatever runtime it is given (the memory host in `npm run fuzz` and the spec).
 */
import * as Arbitrary from "effect/Arbitrary"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import type { Envelope } from "../protocol/envelope.ts"
import { makeRegistry } from "../registry.ts"
import type { WorkspaceRuntime } from "../runtime.ts"
import { CurrentSettings } from "../services/CurrentSettings.ts"
import { HostFs } from "../services/HostFs.ts"
import { defaultSettings, type Settings } from "../settings/settings.ts"
import { ALL_TOOLS } from "../tools/index.ts"
import { type KernelContext, loadTools } from "../tools/Tool.ts"

/** The envelope every public tool returns, as the reference states its type. */
export const EnvelopeSchema = Schema.Struct({
  protocol: Schema.Literal("agentic-workspace/v1"),
  ok: Schema.Boolean,
  operation: Schema.String,
  summary: Schema.String,
  retention: Schema.Struct({
    importance: Schema.Literal("low", "normal", "high", "critical"),
    facts: Schema.optional(Schema.Array(Schema.String)),
    omit_when_summarizing: Schema.optional(Schema.Array(Schema.String))
  }),
  artifacts: Schema.optional(
    Schema.Array(
      Schema.Struct({
        kind: Schema.String,
        path: Schema.String,
        sha256: Schema.String,
        bytes: Schema.Number,
        description: Schema.optional(Schema.String)
      })
    )
  ),
  data: Schema.optional(Schema.Unknown),
  error: Schema.optional(
    Schema.Struct({
      code: Schema.String,
      message: Schema.String,
      details: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
    })
  )
})

export interface FuzzReport {
  readonly ok: boolean
  readonly seed: number
  readonly calls: number
  readonly refused: number
  readonly malformed: number
  readonly byTool: Record<string, number>
  readonly failures: ReadonlyArray<{ readonly tool: string; readonly args: string; readonly problem: string }>
  readonly durationMs: number
}

/** A small deterministic PRNG (mulberry32): the same seed draws the same calls. */
const prng = (seed: number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const UNICODE = ["é", "漢字", "🦀", "\u202e", "\u0000", "\ud800", "a\u0301", "\u2028", "Ω≈ç√"]
const WRONG: ReadonlyArray<unknown> = [
  null,
  0,
  -1,
  1.5,
  2 ** 53,
  "",
  "x",
  true,
  [],
  [1, "a"],
  {},
  { nested: { deep: true } }
]

const nest = (depth: number): unknown => (depth === 0 ? "leaf" : { a: nest(depth - 1) })

/** One malformed variant of a valid input. */
const malform = (
  valid: Record<string, unknown>,
  actions: ReadonlyArray<string>,
  pick: () => number
): Record<string, unknown> | unknown => {
  const choose = <A>(items: ReadonlyArray<A>): A => items[Math.floor(pick() * items.length)]!
  const fields = Object.keys(valid).filter((key) => key !== "action")
  switch (Math.floor(pick() * 9)) {
    case 0:
      return fields.length === 0 ? { ...valid, extra_field: 1 } : { ...valid, [choose(fields)]: choose(WRONG) }
    case 1:
      return { ...valid, [`unknown_${Math.floor(pick() * 1000)}`]: choose(WRONG) }
    case 2:
      return fields.length === 0
        ? { ...valid, content: "x".repeat(200_000) }
        : { ...valid, [choose(fields)]: "x".repeat(100_000 + Math.floor(pick() * 200_000)) }
    case 3:
      return fields.length === 0
        ? valid
        : { ...valid, [choose(fields)]: Array.from({ length: 8 }, () => choose(UNICODE)).join("") }
    case 4:
      return { ...valid, [fields.length === 0 ? "deep" : choose(fields)]: nest(50 + Math.floor(pick() * 400)) }
    case 5: {
      const { action: _action, ...rest } = valid
      return rest
    }
    case 6:
      return { ...valid, action: choose([`${choose(actions)}_`, "", "DELETE", 7, null, choose(UNICODE)]) }
    case 7:
      return choose([null, "[]", 42, [valid], "text"])
    default:
      return { ...valid, camelCaseField: choose(WRONG), transactionId: "tx_1" }
  }
}

/** FNV-1a over the bytes, with the length: cheap, and any change the fuzzer could cause shows. */
const fnv = (bytes: Uint8Array): string => {
  let hash = 0x811c9dc5
  for (let index = 0; index < bytes.length; index++) hash = Math.imul(hash ^ bytes[index]!, 0x01000193) >>> 0
  return `${bytes.length}:${hash.toString(16)}`
}

/** Every file's bytes and every directory below the root, hashed: a refusal must leave it as it was. */
const treeHash = (root: string) =>
  Effect.gen(function* () {
    const fs = yield* HostFs
    const entries: Array<string> = []
    const walk = (dir: string): Effect.Effect<void, unknown> =>
      Effect.gen(function* () {
        const children = yield* fs.readDir(dir)
        for (const child of [...children].sort((a, b) => (a.name < b.name ? -1 : 1))) {
          const abs = `${dir}/${child.name}`
          if (abs === `${root}/.agentic`) continue
          if (child.type === "directory") {
            entries.push(`${abs}/`)
            yield* walk(abs)
          } else if (child.type === "file") entries.push(`${abs} ${fnv(yield* fs.readFile(abs))}`)
          else entries.push(`${abs} (${child.type})`)
        }
      })
    yield* walk(root)
    return entries.join("\n")
  })

const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max)}… (${text.length} chars)`

/** Valid inputs per tool and action, drawn from each action's Schema once (a pool the calls sample from). */
const inputPools = (
  tools: ReadonlyArray<{ readonly name: string; readonly actions: Record<string, unknown> }>,
  seed: number
): Map<string, Array<Record<string, unknown>>> => {
  const pools = new Map<string, Array<Record<string, unknown>>>()
  for (const tool of tools) {
    for (const [action, schema] of Object.entries(tool.actions)) {
      let samples: Array<Record<string, unknown>> = []
      try {
        const encoded = Schema.encodedSchema(schema as Schema.Schema<unknown, unknown>)
        samples = FastCheck.sample(Arbitrary.make(encoded), { seed, numRuns: 40 }).map((value) => ({
          action,
          ...(value as Record<string, unknown>)
        }))
      } catch {
        samples = [{ action }]
      }
      pools.set(`${tool.name} ${action}`, samples.length === 0 ? [{ action }] : samples)
    }
  }
  return pools
}

/** One call: a tool and action from the pools, its valid input, and half the time that input malformed. */
const drawCall = (
  pools: Map<string, Array<Record<string, unknown>>>,
  keys: ReadonlyArray<string>,
  pick: () => number
) => {
  const key = keys[Math.floor(pick() * keys.length)]!
  const [tool] = key.split(" ") as [string, string]
  const pool = pools.get(key)!
  const valid = pool[Math.floor(pick() * pool.length)]!
  const bad = pick() < 0.5
  const args = bad
    ? malform(
        valid,
        keys.filter((k) => k.startsWith(`${tool} `)).map((k) => k.split(" ")[1]!),
        pick
      )
    : valid
  return { tool, args, bad }
}

/**
 * Runs `calls` fuzzed calls against the runtime's registry, cycling the permission mode. The runtime should be
 * a scratch workspace: calls that succeed (in Auto mode, say) really write.
 */
export const fuzzTools = async (
  runtime: WorkspaceRuntime,
  options: { readonly calls: number; readonly seed: number; readonly onProgress?: (line: string) => void }
): Promise<FuzzReport> => {
  const started = Date.now()
  // The input pools read every tool's action Schemas: the lazy tools load them first (core/tools/Tool.ts lazyTool).
  await loadTools(ALL_TOOLS)
  const pick = prng(options.seed)
  const root = runtime.info.root.replace(/\/+$/, "")
  const failures: Array<{ tool: string; args: string; problem: string }> = []
  const byTool: Record<string, number> = {}
  let refused = 0
  let malformed = 0
  const decodeEnvelope = Schema.decodeUnknownEither(EnvelopeSchema)
  const settingsFor = (mode: 0 | 1 | 2): Settings => ({ ...defaultSettings, permissionMode: mode })
  const registries = ([0, 1, 2] as const).map((mode) => makeRegistry(settingsFor(mode), runtime.info, ALL_TOOLS))
  const pools = inputPools(registries[0]!.tools, options.seed)
  const keys = [...pools.keys()]
  let made = 0
  let known: string | undefined
  for (let index = 0; index < options.calls; index++) {
    made++
    const mode = Math.floor(pick() * 3) as 0 | 1 | 2
    const registry = registries[mode]!
    const { tool, args, bad } = drawCall(pools, keys, pick)
    if (bad) malformed++
    byTool[tool] = (byTool[tool] ?? 0) + 1
    const run = <A>(effect: Effect.Effect<A, unknown, KernelContext>) =>
      runtime.run(Effect.provideService(effect, CurrentSettings, settingsFor(mode)))
    // The tree as it was: unchanged since the last hash unless the last call succeeded (and may have written).
    const before = known ?? (await run(treeHash(root)))
    known = undefined
    let envelope: Envelope
    try {
      envelope = await run(registry.call(tool, args))
    } catch (error) {
      failures.push({ tool, args: clip(safeJson(args), 300), problem: `the call rejected: ${String(error)}` })
      continue
    }
    const decoded = decodeEnvelope(envelope)
    if (decoded._tag === "Left")
      failures.push({
        tool,
        args: clip(safeJson(args), 300),
        problem: `the reply does not decode as an envelope: ${clip(String(decoded.left), 300)}`
      })
    if (!envelope.ok) {
      refused++
      if (envelope.error?.code === "INTERNAL_ERROR")
        failures.push({ tool, args: clip(safeJson(args), 300), problem: `INTERNAL_ERROR: ${envelope.error.message}` })
      const after = await run(treeHash(root))
      known = after
      if (after !== before)
        failures.push({
          tool,
          args: clip(safeJson(args), 300),
          problem: `refused with ${envelope.error?.code} but the tree changed`
        })
    }
    if ((index + 1) % 5000 === 0)
      options.onProgress?.(`fuzz: ${index + 1}/${options.calls} calls, ${failures.length} failure(s)`)
    if (failures.length >= 20) break
  }
  return {
    ok: failures.length === 0,
    seed: options.seed,
    calls: made,
    refused,
    malformed,
    byTool,
    failures,
    durationMs: Date.now() - started
  }
}

const safeJson = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}
