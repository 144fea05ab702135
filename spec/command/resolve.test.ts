// Executable resolution (reference: "Executables are resolved on PATH first, then in the project's node_modules/.bin.
// On Windows, npm-generated .cmd shims ... are run as node <script> — no shell is ever used."). The resolver is pure:
// the platform and a view of the filesystem are parameters, so the Windows rules are tested on any host.
import { describe, expect, it } from "vitest"
import { allowlistName, resolveExecutable, shimTarget, winJoin, type ResolveView } from "../../core/exec/resolve.ts"
import { decodeTail, fitTail } from "../../core/tools/command/tail.ts"
import { effectiveTimeout } from "../../core/tools/command/timeouts.ts"
import * as Either from "effect/Either"

const view = (files: Record<string, string>): ResolveView => {
  const lower = new Map(Object.entries(files).map(([key, value]) => [key.toLowerCase(), value]))
  return { isFile: (path) => lower.has(path.toLowerCase()), readText: (path) => lower.get(path.toLowerCase()) }
}

const NODE = "C:\\Program Files\\nodejs\\node.exe"
const WIN = {
  platform: "win32",
  pathEnv: 'C:\\Windows\\system32;"C:\\Program Files\\nodejs";C:\\Users\\u\\AppData\\Roaming\\npm;',
  pathExt: ".COM;.EXE;.BAT;.CMD",
  projectBinDir: "C:\\proj\\node_modules\\.bin",
  nodeExecPath: NODE
}
const TSC_SHIM = `@ECHO off\r\nGOTO start\r\n:find_dp0\r\nSET dp0=%~dp0\r\nEXIT /b\r\n:start\r\nSETLOCAL\r\nCALL :find_dp0\r\n\r\nIF EXIST "%dp0%\\node.exe" (\r\n  SET "_prog=%dp0%\\node.exe"\r\n) ELSE (\r\n  SET "_prog=node"\r\n  SET PATHEXT=%PATHEXT:;.JS;=;%\r\n)\r\n\r\nendLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "%_prog%"  "%dp0%\\..\\typescript\\bin\\tsc" %*\r\n`

describe("resolver: Windows (platform passed in)", () => {
  it("npm-generated .cmd shims (tsc, eslint, …) are run as node <script>; resolvedScript is the JS entry", () => {
    const found = resolveExecutable(
      { ...WIN, name: "tsc" },
      view({ "C:\\proj\\node_modules\\.bin\\tsc.cmd": TSC_SHIM })
    )
    expect(found).toEqual({
      _tag: "Found",
      executable: NODE,
      script: "C:\\proj\\node_modules\\typescript\\bin\\tsc",
      via: "node_modules/.bin"
    })
  })

  it("For npm/npx the Node-bundled CLI next to node.exe is used; the prefix-installed npm is not consulted", () => {
    const files = {
      "C:\\Users\\u\\AppData\\Roaming\\npm\\npm.cmd": TSC_SHIM.replace(
        "..\\typescript\\bin\\tsc",
        "node_modules\\npm\\bin\\npm-cli.js"
      ),
      "C:\\Program Files\\nodejs\\npm.cmd": "@echo off",
      "C:\\Program Files\\nodejs\\npx.cmd": "@echo off",
      "C:\\Program Files\\nodejs\\node_modules\\npm\\bin\\npm-cli.js": "",
      "C:\\Program Files\\nodejs\\node_modules\\npm\\bin\\npx-cli.js": ""
    }
    expect(resolveExecutable({ ...WIN, name: "npm" }, view(files))).toEqual({
      _tag: "Found",
      executable: NODE,
      script: "C:\\Program Files\\nodejs\\node_modules\\npm\\bin\\npm-cli.js",
      via: "node"
    })
    expect(resolveExecutable({ ...WIN, name: "NPX" }, view(files))).toMatchObject({
      script: "C:\\Program Files\\nodejs\\node_modules\\npm\\bin\\npx-cli.js"
    })
    // Only the prefix-installed npm.cmd on PATH: still the CLI beside node.exe.
    const prefixOnly = { ...files }
    delete (prefixOnly as Record<string, string>)["C:\\Program Files\\nodejs\\npm.cmd"]
    expect(resolveExecutable({ ...WIN, name: "npm" }, view(prefixOnly))).toMatchObject({
      script: "C:\\Program Files\\nodejs\\node_modules\\npm\\bin\\npm-cli.js"
    })
  })

  it(".exe on PATH is run directly, PATH before node_modules/.bin, PATHEXT order decides", () => {
    const files = {
      "C:\\Windows\\system32\\git.exe": "",
      "C:\\proj\\node_modules\\.bin\\git.cmd": TSC_SHIM,
      "C:\\Program Files\\nodejs\\node.exe": ""
    }
    expect(resolveExecutable({ ...WIN, name: "git" }, view(files))).toEqual({
      _tag: "Found",
      executable: "C:\\Windows\\system32\\git.exe",
      via: "PATH"
    })
    expect(resolveExecutable({ ...WIN, name: "node.exe" }, view(files))).toMatchObject({
      executable: "C:\\Program Files\\nodejs\\node.exe"
    })
  })

  it("a .cmd/.bat that is not an npm shim is refused (it would need cmd.exe); a shim of a native .exe runs the .exe", () => {
    const files = {
      "C:\\proj\\node_modules\\.bin\\build.bat": "@echo off\r\nmsbuild %*\r\n",
      "C:\\proj\\node_modules\\.bin\\esbuild.cmd": '@"%~dp0\\..\\esbuild\\esbuild.exe"   %*\r\n'
    }
    expect(resolveExecutable({ ...WIN, name: "build" }, view(files))).toMatchObject({
      _tag: "Unsupported",
      path: "C:\\proj\\node_modules\\.bin\\build.bat"
    })
    expect(resolveExecutable({ ...WIN, name: "esbuild" }, view(files))).toEqual({
      _tag: "Found",
      executable: "C:\\proj\\node_modules\\esbuild\\esbuild.exe",
      via: "node_modules/.bin"
    })
  })

  it("not found lists what was searched, and an empty PATH entry (the current directory) is never searched", () => {
    const result = resolveExecutable({ ...WIN, name: "nothing" }, view({}))
    expect(result._tag).toBe("NotFound")
    if (result._tag === "NotFound") {
      expect(result.searched).toContain("C:\\proj\\node_modules\\.bin\\nothing.cmd")
      expect(result.searched.every((path) => path.includes("\\"))).toBe(true)
    }
  })

  it("helpers: winJoin collapses .., shimTarget reads %dp0% paths, allowlist names drop .exe/.cmd on Windows only", () => {
    expect(winJoin("C:\\a\\b", "..\\c", "d.js")).toBe("C:\\a\\c\\d.js")
    expect(shimTarget("C:\\x\\.bin\\t.cmd", TSC_SHIM)).toBe("C:\\x\\typescript\\bin\\tsc")
    expect(shimTarget("C:\\x\\t.cmd", "@echo off")).toBeUndefined()
    expect(allowlistName("Git.EXE", "win32")).toBe("git")
    expect(allowlistName("Git.EXE", "linux")).toBe("Git.EXE")
  })
})

describe("resolver: POSIX", () => {
  it("PATH first, then node_modules/.bin; relative PATH entries are skipped", () => {
    const input = {
      name: "tsc",
      platform: "linux",
      pathEnv: "/usr/local/bin::.:/usr/bin",
      projectBinDir: "/p/node_modules/.bin",
      nodeExecPath: "/usr/bin/node"
    }
    expect(resolveExecutable(input, view({ "/p/node_modules/.bin/tsc": "" }))).toEqual({
      _tag: "Found",
      executable: "/p/node_modules/.bin/tsc",
      via: "node_modules/.bin"
    })
    expect(resolveExecutable(input, view({ "/p/node_modules/.bin/tsc": "", "/usr/bin/tsc": "" }))).toEqual({
      _tag: "Found",
      executable: "/usr/bin/tsc",
      via: "PATH"
    })
    expect(resolveExecutable(input, view({}))).toEqual({
      _tag: "NotFound",
      searched: ["/usr/local/bin/tsc", "/usr/bin/tsc", "/p/node_modules/.bin/tsc"]
    })
  })
})

describe("pure helpers", () => {
  it("timeouts: default, cap, 0 only with start, below one second refused", () => {
    expect(effectiveTimeout("run", undefined, 600)).toEqual(Either.right({ seconds: 600, capped: false }))
    expect(effectiveTimeout("run", 900, 600)).toEqual(Either.right({ seconds: 600, capped: true }))
    expect(effectiveTimeout("start", 0, 600)).toEqual(Either.right({ seconds: 0, capped: false }))
    expect(Either.isLeft(effectiveTimeout("run", 0, 600))).toBe(true)
    expect(Either.isLeft(effectiveTimeout("start", 0.5, 600))).toBe(true)
    expect(effectiveTimeout("run", 1, 600)).toEqual(Either.right({ seconds: 1, capped: false }))
  })

  it("decodeTail skips a cut leading character and drops an incomplete trailing one", () => {
    const bytes = new TextEncoder().encode("€a€")
    expect(decodeTail(bytes.subarray(1), true, 10)).toBe("a€")
    expect(decodeTail(bytes.subarray(0, bytes.length - 1), false, 10)).toBe("€a")
    expect(decodeTail(new TextEncoder().encode("x😀"), false, 1)).toBe("")
    expect(fitTail(`ab"c`, 3)).toBe(`"c`)
    expect(fitTail(`ab"c`, 2)).toBe("c")
  })
})
