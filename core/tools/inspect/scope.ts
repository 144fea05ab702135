/** Which part of the tree a listing or search covers: .gitignore, the configured excludes, named hidden paths. */
import * as Effect from "effect/Effect"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { HostReads, HostInfo } from "../../services/HostFs.ts"
import { isIgnoredPath, readGitignoreText } from "../../services/gitignore.ts"
import { GlobSet } from "../../services/searchCore.ts"

/** True when .gitignore hides `rel` (or a directory above it): the one reader, through the host. */
export const isIgnored = (rel: string, isDirectory: boolean) =>
  Effect.gen(function* () {
    const host = yield* HostReads
    const info = yield* HostInfo
    return yield* isIgnoredPath((dir) => readGitignoreText(host, info.root, dir), rel, isDirectory)
  })

/** The walk options for a base the model named: naming an ignored or excluded directory lists it anyway. */
export const walkScope = (
  base: string,
  input: { readonly include_ignored?: boolean | undefined; readonly exclude?: ReadonlyArray<string> | undefined }
) =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const configured = [...settings.excludePatterns, ...(input.exclude ?? [])]
    const covered = base !== "" && new GlobSet(configured).covers(base)
    // Whether .gitignore hides the base, asked once (each ask reads every .gitignore from the root down) and
    // only where the answer counts: not for a base the excludes cover when include_ignored is set anyway.
    const ignored = base !== "" && !(covered && input.include_ignored === true) && (yield* isIgnored(base, true))
    const named = covered || ignored
    return {
      base,
      includeIgnored: input.include_ignored === true || ignored,
      excludes: named ? configured.filter((pattern) => !new GlobSet([pattern]).covers(base)) : configured,
      namedHidden: named
    }
  })
