/** Pure POSIX path helpers for workspace-relative paths (the core has no node:path). */
import { echo } from "../protocol/bounds.ts"
import { toolError, type ToolError } from "../protocol/errors.ts"
import * as Either from "effect/Either"

/** Joins an absolute root and a relative path ("" is the root itself). */
export const join = (root: string, rel: string): string =>
  rel === "" ? root : root.endsWith("/") ? `${root}${rel}` : `${root}/${rel}`

/** The parent of a relative path ("" for a top-level entry). */
export const dirname = (rel: string): string => {
  const at = rel.lastIndexOf("/")
  return at < 0 ? "" : rel.slice(0, at)
}

/** The last segment of a path. */
export const basename = (rel: string): string => rel.slice(rel.lastIndexOf("/") + 1)

/** Every proper ancestor of a relative path, nearest first ("a/b/c" -> ["a/b", "a"]). */
export const ancestors = (rel: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  let current = dirname(rel)
  while (current !== "") {
    out.push(current)
    current = dirname(current)
  }
  return out
}

/** Normalises an absolute POSIX path (collapses ".", "..", duplicate and trailing slashes). */
export const normalizeAbsolute = (abs: string): string => {
  const out: Array<string> = []
  for (const part of abs.split("/")) {
    if (part === "" || part === ".") continue
    if (part === "..") out.pop()
    else out.push(part)
  }
  return `/${out.join("/")}`
}

/** The path of `abs` relative to `root`, or undefined when it lies outside. */
export const relativeTo = (root: string, abs: string): string | undefined => {
  const r = normalizeAbsolute(root)
  const a = normalizeAbsolute(abs)
  if (a === r) return ""
  const prefix = r === "/" ? "/" : `${r}/`
  return a.startsWith(prefix) ? a.slice(prefix.length) : undefined
}

/**
 * Lexical confinement of a model-given path: refuses empty names, NUL bytes, absolute paths outside
 * the root, drive letters and any ".." that climbs above the root; returns the clean relative path
 * ("" for the root). Symlinks are checked separately, against the real filesystem.
 */
export const confine = (root: string, input: string, field = "path"): Either.Either<string, ToolError> => {
  if (typeof input !== "string") {
    return Either.left(toolError("INVALID_INPUT", `${field} must be a string path relative to the workspace root.`))
  }
  if (input.includes("\0")) {
    return Either.left(
      toolError("INVALID_INPUT", `${field} contains a NUL byte; give a plain relative path.`, { field })
    )
  }
  const unified = input.replace(/\\/g, "/")
  if (/^[A-Za-z]:/.test(unified) || unified.startsWith("//")) {
    return Either.left(
      toolError(
        "PATH_ESCAPE",
        `${field} "${echo(input)}" is not a path inside the workspace; give it relative to the workspace root.`,
        {
          field,
          path: echo(input)
        }
      )
    )
  }
  if (unified.startsWith("/")) {
    const rel = relativeTo(root, unified)
    return rel === undefined
      ? Either.left(
          toolError(
            "PATH_ESCAPE",
            `${field} "${echo(input)}" is outside the workspace; give a path relative to the workspace root.`,
            {
              field,
              path: echo(input)
            }
          )
        )
      : Either.right(rel)
  }
  const out: Array<string> = []
  for (const part of unified.split("/")) {
    if (part === "" || part === ".") continue
    if (part === "..") {
      if (out.length === 0) {
        return Either.left(
          toolError(
            "PATH_ESCAPE",
            `${field} "${echo(input)}" climbs out of the workspace with ".."; give a path inside the workspace root.`,
            {
              field,
              path: echo(input)
            }
          )
        )
      }
      out.pop()
    } else out.push(part)
  }
  return Either.right(out.join("/"))
}
