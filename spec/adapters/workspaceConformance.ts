/**
 * One conformance suite for the Workspace service (and the StateStore over it), run against every
 * HostFs: the memory layer, Node and Deno. It imports no test runner: `suite(name, fixture)` returns
 * named cases that vitest (spec/adapters/workspace-conformance.test.ts) and `deno test`
 * (spec/adapters/deno/workspace_conformance_test.ts) each register. Assertions are node:assert, which
 * both runtimes have.
 */
import assert from "node:assert/strict"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as ManagedRuntime from "effect/ManagedRuntime"
import type { ToolError } from "../../core/protocol/errors.ts"
import { coreLayer, hostLayer } from "../../core/runtime.ts"
import type { HostFs, HostInfo } from "../../core/services/HostFs.ts"
import { HostInfo as HostInfoTag } from "../../core/services/HostFs.ts"
import { Processes, type ProcessesShape } from "../../core/services/Processes.ts"
import { Search } from "../../core/services/Search.ts"
import { makeMemoryHostFs } from "../../core/services/MemoryHostFs.ts"
import type { HostFsShape } from "../../core/services/HostFs.ts"
import { Workspace, WorkspaceWrites } from "../../core/services/Workspace.ts"
import { CurrentSettings as CurrentSettingsTag } from "../../core/services/CurrentSettings.ts"
import { decodeSettings, type Settings } from "../../core/settings/settings.ts"
import { StateStore } from "../../core/store/StateStore.ts"

/** A fresh, empty workspace root on one host. */
export interface HostRoot {
  readonly host: HostFsShape
  /** Absolute and real (symlink-free). */
  readonly root: string
  /** An absolute directory outside the root, for escape checks. */
  readonly outside: string
  /** Creates a symlink on the host (the port has no such operation; tools never create links). */
  readonly symlink: (target: string, path: string) => Promise<void>
  readonly dispose: () => Promise<void>
}

/** How a host makes roots. */
export interface HostFixture {
  readonly runtime: "node" | "deno" | "memory"
  readonly make: () => Promise<HostRoot>
  /** The host's processes; absent: the host has none (its layer refuses). */
  readonly processes?: ProcessesShape
  /** The host's own Search, when it has a faster one than the host-free Search over HostFs. */
  readonly search?: (root: string) => Layer.Layer<Search, never, HostFs | HostInfo>
  /** argv that runs `code` as JavaScript on this host (node -e, deno eval). */
  readonly script?: (code: string) => ReadonlyArray<string>
}

/** One named case. */
export interface ConformanceCase {
  readonly name: string
  readonly run: () => Promise<void>
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()
const text = (bytes: Uint8Array) => decoder.decode(bytes)

const settingsOf = (input: Record<string, unknown>): Settings => {
  const decoded = decodeSettings(input)
  if (decoded._tag === "Left") throw new Error(decoded.left)
  return decoded.right
}

type Services = Workspace | WorkspaceWrites | StateStore

/** Runs `body` with the Workspace and StateStore over a fresh root of the fixture. */
const withWorkspace = async (
  fixture: HostFixture,
  body: (env: {
    root: HostRoot
    run: <A, E>(effect: Effect.Effect<A, E, Services>) => Promise<A>
    flip: <A>(effect: Effect.Effect<A, ToolError, Services>) => Promise<ToolError>
  }) => Promise<void>,
  settings: Record<string, unknown> = {}
) => {
  const root = await fixture.make()
  const layer = coreLayer(
    hostLayer({ root: root.root, runtime: fixture.runtime, platform: "linux", fs: root.host }),
    settingsOf(settings)
  )
  const runtime = ManagedRuntime.make(layer)
  try {
    const run = <A, E>(effect: Effect.Effect<A, E, Services>) => runtime.runPromise(effect)
    const flip = <A>(effect: Effect.Effect<A, ToolError, Services>) => runtime.runPromise(Effect.flip(effect))
    await body({ root, run, flip })
  } finally {
    await runtime.dispose()
    await root.dispose()
  }
}

const ws = WorkspaceWrites
const XRecord = Schema.Struct({ x: Schema.Number })
const CounterRecord = Schema.Struct({ count: Schema.Number })
const bytesOf = (value: string) => encoder.encode(value)

/** The cases for one host. `name` prefixes each case (e.g. "node"). */
export const suite = (name: string, fixture: HostFixture): ReadonlyArray<ConformanceCase> => {
  const cases: Array<ConformanceCase> = []
  const test = (title: string, run: () => Promise<void>) => cases.push({ name: `${name}: ${title}`, run })

  test("write then read round-trips any bytes, creating or replacing the file", () =>
    withWorkspace(fixture, async ({ run }) => {
      const binary = new Uint8Array([0, 255, 128, 10, 13, 0xc3])
      await run(Effect.flatMap(ws, (w) => w.write("a.bin", binary)))
      assert.deepEqual([...(await run(Effect.flatMap(ws, (w) => w.read("a.bin"))))], [...binary])
      await run(Effect.flatMap(ws, (w) => w.write("a.bin", bytesOf("second"))))
      assert.equal(text(await run(Effect.flatMap(ws, (w) => w.read("a.bin")))), "second")
      await run(Effect.flatMap(ws, (w) => w.write("empty.txt", new Uint8Array())))
      assert.equal((await run(Effect.flatMap(ws, (w) => w.read("empty.txt")))).length, 0)
    }))

  test("an atomic write leaves no temporary file beside its target", () =>
    withWorkspace(fixture, async ({ run }) => {
      await run(Effect.flatMap(ws, (w) => w.mkdir("dir")))
      for (let index = 0; index < 5; index++)
        await run(Effect.flatMap(ws, (w) => w.write("dir/f.txt", bytesOf(`v${index}`))))
      const entries = await run(Effect.flatMap(ws, (w) => w.list("dir")))
      assert.deepEqual(
        entries.map((entry) => entry.name),
        ["f.txt"]
      )
    }))

  test("write keeps a given mode and chmod changes it", () =>
    withWorkspace(fixture, async ({ run }) => {
      await run(Effect.flatMap(ws, (w) => w.write("run.sh", bytesOf("#!/bin/sh\n"), { mode: 0o755 })))
      assert.equal((await run(Effect.flatMap(ws, (w) => w.stat("run.sh"))))?.mode, 0o755)
      await run(Effect.flatMap(ws, (w) => w.chmod("run.sh", 0o600)))
      assert.equal((await run(Effect.flatMap(ws, (w) => w.stat("run.sh"))))?.mode, 0o600)
    }))

  test("reading a missing file is NOT_FOUND; stat of a missing path is undefined", () =>
    withWorkspace(fixture, async ({ run, flip }) => {
      assert.equal((await flip(Effect.flatMap(ws, (w) => w.read("missing.txt")))).code, "NOT_FOUND")
      assert.equal(await run(Effect.flatMap(ws, (w) => w.stat("missing/deeper.txt"))), undefined)
    }))

  test("stat and list report types and sizes", () =>
    withWorkspace(fixture, async ({ run }) => {
      await run(Effect.flatMap(ws, (w) => w.mkdir("src/lib", { recursive: true })))
      await run(Effect.flatMap(ws, (w) => w.write("src/a.ts", bytesOf("12345"))))
      const info = await run(Effect.flatMap(ws, (w) => w.stat("src/a.ts")))
      assert.equal(info?.type, "file")
      assert.equal(info?.size, 5)
      assert.equal((await run(Effect.flatMap(ws, (w) => w.stat("src"))))?.type, "directory")
      const entries = [...(await run(Effect.flatMap(ws, (w) => w.list("src"))))].sort((a, b) =>
        a.name.localeCompare(b.name)
      )
      assert.deepEqual(entries, [
        { name: "a.ts", type: "file" },
        { name: "lib", type: "directory" }
      ])
    }))

  test("mkdir without recursive needs the parent; remove refuses a non-empty directory unless recursive", () =>
    withWorkspace(fixture, async ({ run, flip }) => {
      assert.equal((await flip(Effect.flatMap(ws, (w) => w.mkdir("x/y")))).code, "NOT_FOUND")
      await run(Effect.flatMap(ws, (w) => w.mkdir("x/y", { recursive: true })))
      await run(Effect.flatMap(ws, (w) => w.write("x/y/f", bytesOf("f"))))
      assert.equal((await flip(Effect.flatMap(ws, (w) => w.remove("x")))).code, "EDIT_CONFLICT")
      await run(Effect.flatMap(ws, (w) => w.remove("x", { recursive: true })))
      assert.equal(await run(Effect.flatMap(ws, (w) => w.stat("x"))), undefined)
      await run(Effect.flatMap(ws, (w) => w.mkdir("empty")))
      await run(Effect.flatMap(ws, (w) => w.remove("empty")))
      assert.equal(await run(Effect.flatMap(ws, (w) => w.stat("empty"))), undefined)
    }))

  test("rename moves a file, replacing an existing target, and moves a directory with its contents", () =>
    withWorkspace(fixture, async ({ run }) => {
      await run(Effect.flatMap(ws, (w) => w.write("a.txt", bytesOf("a"))))
      await run(Effect.flatMap(ws, (w) => w.write("b.txt", bytesOf("b"))))
      await run(Effect.flatMap(ws, (w) => w.rename("a.txt", "b.txt")))
      assert.equal(text(await run(Effect.flatMap(ws, (w) => w.read("b.txt")))), "a")
      assert.equal(await run(Effect.flatMap(ws, (w) => w.stat("a.txt"))), undefined)
      await run(Effect.flatMap(ws, (w) => w.mkdir("d1/inner", { recursive: true })))
      await run(Effect.flatMap(ws, (w) => w.write("d1/inner/f.txt", bytesOf("f"))))
      await run(Effect.flatMap(ws, (w) => w.rename("d1", "d2")))
      assert.equal(text(await run(Effect.flatMap(ws, (w) => w.read("d2/inner/f.txt")))), "f")
      assert.equal(await run(Effect.flatMap(ws, (w) => w.stat("d1"))), undefined)
    }))

  test("paths that climb out or are absolute outside the root are PATH_ESCAPE; an absolute path inside is accepted", () =>
    withWorkspace(fixture, async ({ root, run, flip }) => {
      assert.equal((await flip(Effect.flatMap(ws, (w) => w.read("../etc/passwd")))).code, "PATH_ESCAPE")
      assert.equal(
        (await flip(Effect.flatMap(ws, (w) => w.write(`${root.outside}/x`, bytesOf("x"))))).code,
        "PATH_ESCAPE"
      )
      await run(Effect.flatMap(ws, (w) => w.write(`${root.root}/in.txt`, bytesOf("in"))))
      assert.equal(text(await run(Effect.flatMap(ws, (w) => w.read("in.txt")))), "in")
    }))

  test("a symlink whose target leaves the root is PATH_ESCAPE for reads and writes through it; one inside is followed", () =>
    withWorkspace(fixture, async ({ root, run, flip }) => {
      await root.symlink(root.outside, `${root.root}/out`)
      assert.equal((await flip(Effect.flatMap(ws, (w) => w.read("out/secret.txt")))).code, "PATH_ESCAPE")
      assert.equal((await flip(Effect.flatMap(ws, (w) => w.write("out/new.txt", bytesOf("x"))))).code, "PATH_ESCAPE")
      await run(Effect.flatMap(ws, (w) => w.mkdir("real")))
      await run(Effect.flatMap(ws, (w) => w.write("real/f.txt", bytesOf("via link"))))
      await root.symlink(`${root.root}/real`, `${root.root}/alias`)
      assert.equal(text(await run(Effect.flatMap(ws, (w) => w.read("alias/f.txt")))), "via link")
      assert.equal((await run(Effect.flatMap(ws, (w) => w.lstat("alias"))))?.type, "symlink")
      await root.symlink(`${root.root}/nowhere`, `${root.root}/dangling`)
      assert.equal((await flip(Effect.flatMap(ws, (w) => w.write("dangling", bytesOf("x"))))).code, "PATH_ESCAPE")
    }))

  test(".git/**, .agentic/** and protectedPatterns are readable but never writable", () =>
    withWorkspace(
      fixture,
      async ({ run, flip }) => {
        await run(Effect.flatMap(StateStore, (store) => store.writeText("notes/n.md", "state\n")))
        assert.equal(text(await run(Effect.flatMap(ws, (w) => w.read(".agentic/notes/n.md")))), "state\n")
        for (const path of [".agentic/notes/n.md", ".git/config", "secrets/key.pem", "nested/.git/HEAD"]) {
          assert.equal(
            (await flip(Effect.flatMap(ws, (w) => w.write(path, bytesOf("x"))))).code,
            "PROTECTED_PATH",
            path
          )
        }
        assert.equal(
          (await flip(Effect.flatMap(ws, (w) => w.remove(".agentic", { recursive: true })))).code,
          "PROTECTED_PATH"
        )
      },
      { protectedPatterns: ["secrets/**"] }
    ))

  // Issue 10 §8: the alias table. Each spelling names .git or .agentic on some filesystem a repository is
  // checked out on (NTFS, HFS+; the git CVE-2019-1352 and CVE-2014-9390 classes), so it is refused on every host.
  test("aliases of protected names on other filesystems are refused: trailing dots and spaces, streams, 8.3 names, ignorable code points", () =>
    withWorkspace(
      fixture,
      async ({ flip, run }) => {
        const aliases = [
          ".git./config",
          ".git /config",
          ".git. . /config",
          ".git::$INDEX_ALLOCATION/config",
          ".git:stream",
          "GIT~1/config",
          "git~2/HEAD",
          "GI7EBA~1/config",
          ".g\u200cit/config",
          ".\u200dgit/hooks/pre-commit",
          ".git\ufeff/config",
          ".GIT/config",
          "sub/.git./config",
          "sub/GIT~1/HEAD",
          ".agentic./notes/x.md",
          ".agentic /approvals/state.json",
          ".agentic::$DATA/x",
          "AGENTI~1/approvals/state.json",
          ".agen\u200ctic/notes/x.md",
          "secrets./key.pem",
          "secrets /key.pem"
        ]
        for (const path of aliases) {
          assert.equal(
            (await flip(Effect.flatMap(ws, (w) => w.write(path, bytesOf("x"))))).code,
            "PROTECTED_PATH",
            JSON.stringify(path)
          )
        }
        // Names that only look alike stay writable.
        for (const path of [
          ".gitignore",
          ".github/workflows/ci.yml",
          "git/config",
          "sub/.agentic/x.md",
          "my.git.d/x",
          "agenti~x/y"
        ]) {
          const parent = path.slice(0, path.lastIndexOf("/"))
          await run(
            Effect.flatMap(ws, (w) =>
              Effect.zipRight(w.mkdir(parent, { recursive: true }), w.write(path, bytesOf("x")))
            )
          )
        }
      },
      { protectedPatterns: ["secrets/**"] }
    ))

  test("the state store: JSON round-trips, append creates then appends, list of a missing folder is empty", () =>
    withWorkspace(fixture, async ({ run }) => {
      const store = StateStore
      await run(Effect.flatMap(store, (s) => s.writeJson("a/b.json", { x: 1 })))
      assert.deepEqual(await run(Effect.flatMap(store, (s) => s.readJson("a/b.json", XRecord))), { x: 1 })
      await run(Effect.flatMap(store, (s) => s.appendText("log.txt", "one\n")))
      await run(Effect.flatMap(store, (s) => s.appendText("log.txt", "two\n")))
      assert.equal(await run(Effect.flatMap(store, (s) => s.readText("log.txt"))), "one\ntwo\n")
      assert.deepEqual(await run(Effect.flatMap(store, (s) => s.list("nothing-here"))), [])
      assert.equal(await run(Effect.flatMap(store, (s) => s.readJson("absent.json", XRecord))), undefined)
    }))

  test("'a file that is not JSON or does not decode against its Schema fails IO_ERROR naming the file and the repair (move it aside)'", () =>
    withWorkspace(fixture, async ({ run, flip }) => {
      await run(Effect.flatMap(StateStore, (s) => s.writeText("bad/not-json.json", "{ not json")))
      await run(Effect.flatMap(StateStore, (s) => s.writeJson("bad/wrong.json", { x: "one" })))
      for (const rel of ["bad/not-json.json", "bad/wrong.json"]) {
        const error = await flip(Effect.flatMap(StateStore, (s) => s.readJson(rel, XRecord)))
        assert.equal(error.code, "IO_ERROR")
        assert.match(error.message, new RegExp(`\\.agentic/${rel.replace(".", "\\.")}`))
        assert.match(error.message, /move it aside/)
        assert.deepEqual(error.details, { path: `.agentic/${rel}` })
      }
      // Fields the Schema does not name survive a read (a newer writer's fields are kept through an update).
      await run(Effect.flatMap(StateStore, (s) => s.writeJson("extra.json", { x: 1, mac: "ab" })))
      assert.deepEqual(await run(Effect.flatMap(StateStore, (s) => s.readJson("extra.json", XRecord))), {
        x: 1,
        mac: "ab"
      })
    }))

  test("concurrent locked updates of one store file never lose a write", () =>
    withWorkspace(fixture, async ({ run }) => {
      const increment = Effect.flatMap(StateStore, (s) =>
        s.update("counter.json", CounterRecord, (current) =>
          Effect.succeed([undefined, { count: (current?.count ?? 0) + 1 }] as const)
        )
      )
      await run(
        Effect.all(
          Array.from({ length: 12 }, () => increment),
          { concurrency: "unbounded" }
        )
      )
      assert.deepEqual(await run(Effect.flatMap(StateStore, (s) => s.readJson("counter.json", CounterRecord))), {
        count: 12
      })
    }))

  return cases
}

/** The memory host as a fixture (virtual paths; the same under vitest and `deno test`). */
export const memory: HostFixture = {
  runtime: "memory",
  make: async () => {
    const fs = makeMemoryHostFs(["/virtual/root", "/virtual/outside"])
    return {
      host: fs.host,
      root: "/virtual/root",
      outside: "/virtual/outside",
      symlink: async (target, at) => {
        const error = fs.symlink(target, at)
        if (error !== undefined) throw error
      },
      dispose: async () => undefined
    }
  }
}

type HostServicesOnly = Processes | Search | HostInfo | Workspace | WorkspaceWrites | StateStore

/** Runs `body` over a host's whole layer (`hostLayer`): processes (or their refusal) and search. */
const withHost = async (
  fixture: HostFixture,
  body: (env: {
    root: HostRoot
    run: <A, E>(effect: Effect.Effect<A, E, HostServicesOnly>) => Promise<A>
  }) => Promise<void>
) => {
  const root = await fixture.make()
  const host = hostLayer({
    root: root.root,
    runtime: fixture.runtime,
    platform: "linux",
    fs: root.host,
    ...(fixture.processes === undefined ? {} : { processes: fixture.processes }),
    ...(fixture.search === undefined ? {} : { search: fixture.search(root.root) })
  })
  const layer = Layer.mergeAll(Workspace.layer, StateStore.layer).pipe(
    Layer.provideMerge(Layer.merge(host, Layer.succeed(CurrentSettingsTag, settingsOf({}))))
  )
  const runtime = ManagedRuntime.make(layer as Layer.Layer<HostServicesOnly>)
  try {
    await body({ root, run: (effect) => runtime.runPromise(effect) })
  } finally {
    await runtime.dispose()
    await root.dispose()
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The process and search services of one host (issue 9: "The conformance suite runs the process and
 * search services on Node, Deno and memory hosts"). A host without processes must refuse clearly.
 */
export const servicesSuite = (name: string, fixture: HostFixture): ReadonlyArray<ConformanceCase> => {
  const cases: Array<ConformanceCase> = []
  const test = (title: string, run: () => Promise<void>) => cases.push({ name: `${name}: ${title}`, run })
  const processes = fixture.processes
  const script = fixture.script

  if (processes === undefined || script === undefined) {
    test('processes: a host without them advertises no "process" and refuses TOOL_DISABLED naming the host', () =>
      withHost(fixture, async ({ run }) => {
        assert.equal((await run(HostInfoTag)).capabilities.includes("process"), false)
        const refused = await run(
          Effect.flip(Effect.flatMap(Processes, (p) => p.exec({ argv: ["git"], cwd: "/", timeoutMs: 1000 })))
        )
        assert.equal(refused.code, "TOOL_DISABLED")
        assert.equal(refused.message, `this host (${fixture.runtime}) has no process service`)
      }))
  } else {
    test("processes: exec runs argv to completion without a shell (exit code, stdout, stdin); a missing executable is NOT_FOUND", () =>
      withHost(fixture, async ({ root, run }) => {
        assert.equal((await run(HostInfoTag)).capabilities.includes("process"), true)
        const result = await run(
          Effect.flatMap(Processes, (p) =>
            p.exec({
              argv: script(
                "process.stdin.on('data', (d) => process.stdout.write(String(d).toUpperCase())); process.stdin.on('end', () => process.exit(4))"
              ),
              cwd: root.root,
              timeoutMs: 30_000,
              stdin: "a|b $X"
            })
          )
        )
        assert.deepEqual(result, {
          exitCode: 4,
          signal: null,
          stdout: "A|B $X",
          stderr: "",
          timedOut: false,
          truncated: false
        })
        const missing = await run(
          Effect.flip(
            Effect.flatMap(Processes, (p) =>
              p.exec({ argv: ["aw-no-such-executable-xyz"], cwd: root.root, timeoutMs: 5000 })
            )
          )
        )
        assert.equal(missing.code, "NOT_FOUND")
      }))

    test("processes: exec's output is the UTF-8 text of all its bytes however they arrive (sequences split between writes, invalid bytes, more than 256 KiB; cut at maxOutputBytes)", () =>
      withHost(fixture, async ({ root, run }) => {
        // 300 KiB of ASCII, then "é" and "€" split between writes, a BOM inside the text and a byte that is
        // never UTF-8; each write a few ms after the last, so the reader gets them as separate chunks.
        const writer = `const parts = [Buffer.alloc(300 * 1024, 0x78), Buffer.from([0xc3]), Buffer.from([0xa9, 0xef, 0xbb]), Buffer.from([0xbf, 0xe2, 0x82]), Buffer.from([0xac, 0xff, 0x62])]; const next = () => { const part = parts.shift(); if (part === undefined) return; process.stdout.write(part, () => setTimeout(next, 5)) }; next()`
        const ascii = "x".repeat(300 * 1024)
        const exec = (maxOutputBytes?: number) =>
          run(
            Effect.flatMap(Processes, (p) =>
              p.exec({
                argv: script(writer),
                cwd: root.root,
                timeoutMs: 30_000,
                ...(maxOutputBytes === undefined ? {} : { maxOutputBytes })
              })
            )
          )
        const whole = await exec()
        assert.equal(whole.stdout, `${ascii}é\ufeff€\ufffdb`)
        assert.equal(whole.truncated, false)
        // Cut inside "é": the half sequence at the end is one replacement character.
        const cut = await exec(300 * 1024 + 1)
        assert.equal(cut.stdout, `${ascii}\ufffd`)
        assert.equal(cut.truncated, true)
      }))

    test("processes: a job runs under the supervisor protocol (spec.json in, started.json and exit.json out, logs appended)", () =>
      withHost(fixture, async ({ root, run }) => {
        const jobDir = `${root.root}/.agentic/jobs/job_conformance`
        const [executable, ...args] = script("console.log('out'); console.error('err'); process.exit(3)")
        await run(
          Effect.flatMap(StateStore, (store) =>
            store.writeJson("jobs/job_conformance/spec.json", { executable, args, cwd: root.root, timeoutMs: 30_000 })
          )
        )
        const launched = await run(Effect.flatMap(Processes, (p) => p.launch(jobDir)))
        assert.equal(launched.startError, undefined)
        assert.equal(typeof launched.pid, "number")
        let exit: { status?: string; exitCode?: number } | undefined
        for (let round = 0; round < 600 && exit === undefined; round++) {
          exit = await run(
            Effect.flatMap(StateStore, (store) => store.readText("jobs/job_conformance/exit.json"))
          ).then((text) => (text === undefined ? undefined : JSON.parse(text)))
          if (exit === undefined) await sleep(50)
        }
        assert.equal(exit?.status, "exited")
        assert.equal(exit?.exitCode, 3)
        const out = await run(Effect.flatMap(StateStore, (store) => store.readText("jobs/job_conformance/stdout.log")))
        const err = await run(Effect.flatMap(StateStore, (store) => store.readText("jobs/job_conformance/stderr.log")))
        assert.equal(out, "out\n")
        assert.equal(err, "err\n")
        assert.equal(await run(Effect.flatMap(Processes, (p) => p.groupAlive(launched.pid!))), false)
      }))
  }

  test("search: walk honours .gitignore and lists in path order; grep finds a literal with its line", () =>
    withHost(fixture, async ({ run }) => {
      const write = (rel: string, content: string) => run(Effect.flatMap(ws, (w) => w.write(rel, bytesOf(content))))
      await run(Effect.flatMap(ws, (w) => w.mkdir("src")))
      await write(".gitignore", "ignored.txt\n")
      await write("src/a.ts", "one\nneedle here\n")
      await write("b.txt", "no match\n")
      await write("ignored.txt", "needle hidden\n")
      const walked = await run(
        Effect.flatMap(Search, (search) =>
          search.walk({ base: "", includeIgnored: false, excludes: [], directories: false, maxEntries: 100 })
        )
      )
      assert.deepEqual(
        walked.entries.map((entry) => entry.path),
        [".gitignore", "b.txt", "src/a.ts"]
      )
      assert.equal(walked.complete, true)
      const found = await run(
        Effect.flatMap(Search, (search) =>
          search.grep({
            base: "",
            includeIgnored: false,
            excludes: [],
            include: [],
            source: "needle",
            flags: "m",
            literal: "needle",
            context: 0,
            maxMatches: 10,
            maxLineChars: 200,
            maxFileBytes: 1_000_000
          })
        )
      )
      assert.deepEqual(
        found.matches.map((match) => [match.path, match.line]),
        [["src/a.ts", 2]]
      )
    }))
  return cases
}
