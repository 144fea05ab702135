/**
 * Issue 28 item 2, files a reader can hold: every source file of core/ and adapters/ over FILE_LIMIT lines and
 * every function over FUNCTION_LIMIT lines, found with the TypeScript compiler API. spec/kernel/sizes.test.ts
 * compares them with its allow-list; `npx tsx spec/support/sizes.ts` prints them.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"

export const FILE_LIMIT = 500
export const FUNCTION_LIMIT = 80

export interface Oversize {
  /** `path` for a file, `path name` for a function (named by itself or by what it is assigned to). */
  readonly key: string
  readonly lines: number
}

const SOURCE = /\.(ts|mts|js|mjs)$/

const sourcesUnder = (repo: string, dir: string): Array<string> =>
  fs
    .readdirSync(path.join(repo, dir), { recursive: true, encoding: "utf8" })
    .map((name) => `${dir}/${name.split(path.sep).join("/")}`)
    .filter((name) => SOURCE.test(name) && !name.endsWith(".d.ts") && !name.includes("/node_modules/"))
    .filter((name) => fs.statSync(path.join(repo, name)).isFile())
    .sort()

const lineCount = (text: string) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0)

/** A function's name: its own, or the variable, property or parameter position it is the value of. */
const nameOf = (node: ts.Node): string => {
  const own = (node as { name?: ts.Node }).name
  if (own !== undefined && (ts.isIdentifier(own) || ts.isStringLiteral(own) || ts.isPrivateIdentifier(own)))
    return own.text
  let at: ts.Node | undefined = node.parent
  while (at !== undefined && !ts.isSourceFile(at)) {
    if (ts.isVariableDeclaration(at) && ts.isIdentifier(at.name)) return at.name.text
    if (ts.isPropertyAssignment(at) || ts.isMethodDeclaration(at) || ts.isPropertyDeclaration(at)) {
      const name = at.name
      if (ts.isIdentifier(name) || ts.isStringLiteral(name)) return name.text
    }
    if (ts.isFunctionDeclaration(at) && at.name !== undefined) return at.name.text
    at = at.parent
  }
  return "(top level)"
}

const isFunction = (node: ts.Node) =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node)

/**
 * The oversized files and functions under `dirs`; a function named twice keeps its longest span. `limits`
 * defaults to the rule's (the spec lowers it once to show the measure finds files and functions at all).
 */
export const oversized = (
  repo: string,
  dirs: ReadonlyArray<string>,
  limits: { readonly file: number; readonly func: number } = { file: FILE_LIMIT, func: FUNCTION_LIMIT }
): Array<Oversize> => {
  const found = new Map<string, number>()
  for (const file of dirs.flatMap((dir) => sourcesUnder(repo, dir))) {
    const text = fs.readFileSync(path.join(repo, file), "utf8")
    const lines = lineCount(text)
    if (lines > limits.file) found.set(file, lines)
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
    const visit = (node: ts.Node) => {
      if (isFunction(node)) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line
        const span = end - start + 1
        const key = `${file} ${nameOf(node)}`
        if (span > limits.func && span > (found.get(key) ?? 0)) found.set(key, span)
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  return [...found].map(([key, lines]) => ({ key, lines })).sort((a, b) => a.key.localeCompare(b.key))
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..")
  for (const { key, lines } of oversized(repo, ["core", "adapters"])) process.stdout.write(`${lines}\t${key}\n`)
}
