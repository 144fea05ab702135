/**
 * The files the Node host runs or serves from beside its code, found from this module's own location so
 * the sources, the package's dist/ and any bundle agree: in a checkout this module is
 * adapters/node/runtimeFiles.ts (the package root two folders up); in the package it is bundled into the
 * flat dist/ (the package root one folder up). The search worker, the job supervisor and the capture
 * differ are not files at all: they ride inside the code as strings (scripts.generated.ts).
 *
 * `missingRuntimeFiles` is what the command checks at start-up: a package that lost one of them fails then,
 * naming the file, instead of a sub-agent run "interrupted" or a browser that "did not start" later.
 */
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"

const FROM_SOURCE = fileURLToPath(import.meta.url).endsWith(".ts")

/** A file of the package, by its path from the package root (bin/…). */
const packageFile = (relative: string): string =>
  fileURLToPath(new URL(`${FROM_SOURCE ? "../../" : "../"}${relative}`, import.meta.url))

/** The bin a sub-agent worker re-runs (`agent-worker`): it picks the sources or dist/ as any start does. */
export const WORKER_BIN: string = packageFile("bin/agentic-workspace.js")

/** The browser session supervisor: the TypeScript source (through tsx) in a checkout, dist/browserSupervisor.js in the package. */
export const BROWSER_SUPERVISOR: string = fileURLToPath(
  new URL(FROM_SOURCE ? "./browserSupervisor.ts" : "./browserSupervisor.js", import.meta.url)
)

/** Whether the supervisor is the TypeScript source (run through tsx). */
export const SUPERVISOR_FROM_SOURCE: boolean = FROM_SOURCE

/** The review page's static files. */
export const REVIEW_INDEX: string = fileURLToPath(
  new URL(FROM_SOURCE ? "../review/review-static/index.html" : "./review-static/index.html", import.meta.url)
)

/** The runtime files that do not exist where this code expects them (empty when the package is whole). */
export const missingRuntimeFiles = (
  files: ReadonlyArray<string> = [WORKER_BIN, BROWSER_SUPERVISOR, REVIEW_INDEX]
): Array<string> => files.filter((file) => !fs.existsSync(file))
