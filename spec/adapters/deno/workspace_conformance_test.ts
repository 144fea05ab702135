/**
 * The Deno subset: the Workspace conformance suite against the Deno host (and the memory host, under
 * Deno's runtime), and the Deno CLI end to end. Run by `deno test` from `npm test`.
 */
import { denoHostFs } from "../../../adapters/deno/DenoHostFs.ts"
import { denoProcesses } from "../../../adapters/deno/DenoProcesses.ts"
import { denoSearchLayer } from "../../../adapters/deno/DenoSearch.ts"
import { type HostFixture, memory, servicesSuite, suite } from "../workspaceConformance.ts"

// Workspace keys (and those of the CLI children, which inherit the environment) go to a temporary
// XDG_STATE_HOME, never into the real ~/.local/state.
if (!(Deno.env.get("XDG_STATE_HOME") ?? "").includes("aw-state-")) {
  const stateHome = await Deno.realPath(await Deno.makeTempDir({ prefix: "aw-state-" }))
  Deno.env.set("XDG_STATE_HOME", stateHome)
  globalThis.addEventListener("unload", () => Deno.removeSync(stateHome, { recursive: true }))
}

const deno: HostFixture = {
  runtime: "deno",
  make: async () => {
    const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "aw-conf-deno-" }))
    await Deno.mkdir(`${base}/root`)
    await Deno.mkdir(`${base}/outside`)
    return {
      host: denoHostFs,
      root: `${base}/root`,
      outside: `${base}/outside`,
      symlink: (target, at) => Deno.symlink(target, at),
      dispose: () => Deno.remove(base, { recursive: true })
    }
  },
  processes: denoProcesses,
  search: denoSearchLayer,
  script: (code) => [Deno.execPath(), "eval", code]
}

for (const fixture of [deno, memory]) {
  for (const testCase of suite(`deno/${fixture.runtime}`, fixture)) {
    // sanitizeOps off: the lock refresher's interval is cleared on release, but Effect's scheduler may outlive a case.
    Deno.test({ name: testCase.name, fn: testCase.run, sanitizeOps: false, sanitizeResources: false })
  }
  for (const testCase of servicesSuite(`deno/${fixture.runtime}`, fixture)) {
    Deno.test({ name: testCase.name, fn: testCase.run, sanitizeOps: false, sanitizeResources: false })
  }
}

Deno.test("deno/cli: the shared CLI runs a tool call under Deno and prints one envelope", async () => {
  const root = await Deno.makeTempDir({ prefix: "aw-cli-deno-" })
  try {
    const main = new URL("../../../adapters/deno/main.ts", import.meta.url).pathname
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        main,
        "call",
        "workspace_notes",
        '{"action":"write","name":"hello","content":"from deno"}',
        "--root",
        root
      ],
      stdout: "piped",
      stderr: "piped"
    }).output()
    const envelope = JSON.parse(new TextDecoder().decode(output.stdout))
    if (output.code !== 0 || envelope.ok !== true || envelope.operation !== "notes.write") {
      throw new Error(
        `unexpected: ${output.code} ${new TextDecoder().decode(output.stdout)} ${new TextDecoder().decode(output.stderr)}`
      )
    }
    const written = await Deno.readTextFile(`${root}/.agentic/notes/hello.md`)
    if (written !== "from deno\n") throw new Error(`note content: ${JSON.stringify(written)}`)
  } finally {
    await Deno.remove(root, { recursive: true })
  }
})

Deno.test({
  name: "deno/cli: workspace_command runs on the Deno host (the same supervisor protocol as Node)",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "aw-cmd-deno-" }))
    try {
      const main = new URL("../../../adapters/deno/main.ts", import.meta.url).pathname
      // A bare name resolved on PATH (an absolute path must lie inside the workspace): node, run by the Deno host's supervisor.
      const args = JSON.stringify({ action: "run", executable: "node", args: ["-e", "console.log('from a deno job')"] })
      const output = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          main,
          "call",
          "workspace_command",
          args,
          "--root",
          root,
          "--set",
          "permissionMode=2",
          "--set",
          "executableAllowlist=*"
        ],
        stdout: "piped",
        stderr: "piped"
      }).output()
      const envelope = JSON.parse(new TextDecoder().decode(output.stdout))
      if (envelope.ok !== true || envelope.data?.exitCode !== 0 || envelope.data?.stdout !== "from a deno job\n") {
        throw new Error(
          `unexpected: ${new TextDecoder().decode(output.stdout)} ${new TextDecoder().decode(output.stderr)}`
        )
      }
    } finally {
      await Deno.remove(root, { recursive: true })
    }
  }
})
