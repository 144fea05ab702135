/** The TypeScript fixture of the rename and staged-diagnostics specs (issue 30 items 4, 5): five files using one function. */
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"

export const TSCONFIG = `${JSON.stringify(
  {
    compilerOptions: {
      strict: true,
      target: "es2022",
      module: "esnext",
      moduleResolution: "bundler",
      noEmit: true,
      skipLibCheck: true
    },
    include: ["src"]
  },
  null,
  2
)}\n`

/** src/util.ts declares formatName (line 2, column 17) and count; a, b, c, d use formatName, a uses count too. */
export const FILES: Record<string, string> = {
  "tsconfig.json": TSCONFIG,
  "src/util.ts": [
    "/** Formats a name; the word formatName in this comment is not a reference. */",
    "export function formatName(first: string, last: string): string {",
    "  return `${first} ${last}`",
    "}",
    "export function count(): number {",
    "  return 1",
    "}",
    'export const show = () => console.log("x")',
    ""
  ].join("\n"),
  "src/a.ts": [
    'import { count, formatName } from "./util"',
    'export const a = formatName("a", "b")',
    "export const n: number = count()",
    ""
  ].join("\n"),
  ...Object.fromEntries(
    ["b", "c", "d"].map((name) => [
      `src/${name}.ts`,
      [
        'import { formatName } from "./util"',
        `export const ${name} = formatName("${name}", "z")`,
        'export const label = "formatName"',
        ""
      ].join("\n")
    ])
  )
}

/** The position of formatName's declaration. */
export const FORMAT_NAME = { path: "src/util.ts", line: 2, column: 17 }
/** The five files a rename of formatName edits. */
export const RENAMED_FILES = ["src/a.ts", "src/b.ts", "src/c.ts", "src/d.ts", "src/util.ts"]

/** A workspace holding the fixture (and `extra` files). */
export const openFixture = async (
  settings: Record<string, unknown>,
  extra: Record<string, string> = {}
): Promise<TempWorkspace> => {
  const ws = await openWorkspace(settings)
  for (const [rel, text] of Object.entries({ ...FILES, ...extra })) await ws.write(rel, text)
  return ws
}
