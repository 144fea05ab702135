/**
 * The `verify` verb, shared by the hosts: runs the model-based test of the approval semantics
 * (core/verify/run.ts) against a host and prints a report; with --json stdout is exactly one JSON object
 * { ok, seed, runs, sequences, cellsCovered, cellsTotal, counterexample, … } and progress goes to stderr.
 * Exit 0 when the host gates as the reference model says, 1 when it does not, 2 for a bad flag.
 */
import type * as Layer from "effect/Layer"
import type { GateFaultName } from "../core/gate/gate.ts"
import type { HostServices } from "../core/runtime.ts"
import { verifyApprovalSemantics } from "../core/verify/run.ts"
import type { CliHost, ParsedLine } from "./cli.ts"

/** A host's way to build the layer of `--host NAME` (a factory: a fresh workspace per sequence; a layer: shared, reset between sequences); a string: why this runtime cannot. */
export type VerifyLayers = (host: "node" | "deno" | "memory") => Promise<
  | {
      readonly layer: Layer.Layer<HostServices, unknown> | (() => Layer.Layer<HostServices, unknown>)
      readonly cleanup: () => Promise<void>
    }
  | string
>

const FAULTS: ReadonlyArray<GateFaultName> = ["skip-denial", "accept-after-change"]

const integer = (raw: string | true | undefined, fallback: number, name: string): number | string => {
  if (raw === undefined) return fallback
  if (raw === true || !/^\d+$/.test(raw)) return `--${name} takes a whole number`
  return Number(raw)
}

export const verifyVerb =
  (layers: VerifyLayers) =>
  async (line: ParsedLine, host: CliHost): Promise<number> => {
    const runs = integer(line.flags["runs"], 100, "runs")
    const seed = integer(line.flags["seed"], 20261201, "seed")
    const choice = line.flags["host"] ?? "memory"
    const fault = line.flags["plant-fault"]
    const problems = [
      ...(typeof runs === "string" ? [runs] : []),
      ...(typeof seed === "string" ? [seed] : []),
      ...(choice === "node" || choice === "deno" || choice === "memory"
        ? []
        : [`--host takes node, deno or memory, got ${String(choice)}`]),
      ...(fault === undefined || FAULTS.includes(fault as GateFaultName)
        ? []
        : [`--plant-fault takes ${FAULTS.join(", ")} (a test-only switch)`])
    ]
    if (problems.length > 0 || typeof runs !== "number" || typeof seed !== "number") {
      host.stderr(`agentic-workspace verify: ${problems.join("; ")}.\n`)
      return 2
    }
    const built = await layers(choice as "node" | "deno" | "memory")
    if (typeof built === "string") {
      host.stderr(`agentic-workspace verify: ${built}\n`)
      return 2
    }
    try {
      host.stderr(
        `verify: ${runs} sequences on the ${choice} host, seed ${seed}${fault === undefined ? "" : `, planted fault ${fault}`}\n`
      )
      const report = await verifyApprovalSemantics({
        layer: built.layer,
        runs,
        seed,
        onProgress: (text) => host.stderr(`${text}\n`),
        ...(fault === undefined ? {} : { fault: fault as GateFaultName })
      })
      if (line.flags["json"] === true) host.stdout(`${JSON.stringify(report)}\n`)
      else {
        const out = [
          `${report.ok ? "OK" : "FAILED"}: ${report.sequences} sequences (${report.steps} calls and decisions) on the ${choice} host, seed ${report.seed}.`,
          `Gate cells covered: ${report.cellsCovered} of ${report.cellsTotal} (mode × plan state × own record × destructive class).`
        ]
        if (report.counterexample !== null) {
          out.push(
            "Shrunk counterexample (replay these calls in order):",
            ...report.counterexample.calls.map((call, index) => `  ${index + 1}. ${call}`),
            `What differed: ${report.counterexample.failure}`
          )
        }
        host.stdout(`${out.join("\n")}\n`)
      }
      return report.ok ? 0 : 1
    } finally {
      await built.cleanup()
    }
  }
