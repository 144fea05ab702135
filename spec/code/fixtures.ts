/** The fixture projects of the code-intelligence specs (issue 30): small, real, with known answers. */

export const TS_FILES: Record<string, string> = {
  "tsconfig.json": JSON.stringify({
    compilerOptions: { strict: true, target: "es2022", module: "nodenext", noEmit: true, types: [] },
    include: ["src"]
  }),
  "src/shapes.ts": [
    "export interface Shape {",
    "  area(): number",
    "}",
    "export function area(width: number, height: number): number {",
    "  return width * height",
    "}",
    "export class Square implements Shape {",
    "  constructor(readonly side: number) {}",
    "  area(): number {",
    "    return area(this.side, this.side)",
    "  }",
    "}",
    ""
  ].join("\n"),
  "src/report.ts": [
    'import { area, Square } from "./shapes.js"',
    "// area is named in this comment",
    'const label = "area"',
    "export function report(): string {",
    "  const total = area(2, 3) + new Square(4).area()",
    "  return `${label}: ${total}`",
    "}",
    "export function other(): number {",
    "  const area = 7",
    "  return area",
    "}",
    ""
  ].join("\n"),
  "src/broken.ts": ['import { area } from "./shapes.js"', "export const bad: string = area(1, 2)", ""].join("\n")
}

export const PY_FILES: Record<string, string> = {
  "pyrightconfig.json": JSON.stringify({ include: ["."], typeCheckingMode: "standard" }),
  "pkg/__init__.py": "",
  "pkg/geometry.py": [
    "def area(width: float, height: float) -> float:",
    "    return width * height",
    "",
    "",
    "class Square:",
    "    def __init__(self, side: float) -> None:",
    "        self.side = side",
    "",
    "    def area(self) -> float:",
    "        return area(self.side, self.side)",
    ""
  ].join("\n"),
  "main.py": [
    "from pkg.geometry import Square, area",
    "",
    'LABEL = "area"  # the word area in a string and a comment',
    "",
    "",
    "def report() -> float:",
    "    return area(2, 3) + Square(4).area()",
    "",
    "",
    "def other() -> int:",
    "    area = 7",
    "    return area",
    "",
    "",
    "bad: str = area(1, 2)",
    ""
  ].join("\n")
}

/** The 1-based {line, column} of the `nth` (0-based) occurrence of `needle` on line `line` of `text`. */
export const at = (text: string, line: number, needle: string, nth = 0) => {
  const content = text.split("\n")[line - 1]!
  let index = -1
  for (let i = 0; i <= nth; i++) index = content.indexOf(needle, index + 1)
  if (index < 0) throw new Error(`${needle} not on line ${line}: ${content}`)
  return { line, column: index + 1 }
}
