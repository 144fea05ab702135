/** Which part of the tree a listing or search covers: .gitignore, the configured excludes, named hidden paths. */
import * as Effect from "effect/Effect"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { HostFs, HostInfo } from "../../services/HostFs.ts"
import { dirname, join } from "../../services/paths.ts"
import { ignoreStackAt } from "../../services/Search.ts"
import { GlobSet } from "../../services/searchCore.ts"

/** The .gitignore rules at a directory, read through the host (absolute paths stay inside the core). */
export const readGitignore = (dir: string) =>
  Effect.gen(function* () {
    const host = yield* HostFs
    const info = yield* HostInfo
    return yield* host.readFile(join(info.root, dir === "" ? ".gitignore" : `${dir}/.gitignore`)).pipe(
      Effect.map((bytes): string | undefined => new TextDecoder().decode(bytes)),
      Effect.orElseSucceed(() => undefined)
    )
  })

/** True when .gitignore hides `rel` (or a directory above it). */
export const isIgnored = (rel: string, isDirectory: boolean) =>
  Effect.gen(function* () {
    if (rel === "") return false
    const host = yield* HostFs
    const info = yield* HostInfo
    const read = (dir: string) => Effect.provideService(readGitignore(dir), HostFs, host).pipe(Effect.provideService(HostInfo, info))
    const stack = yield* ignoreStackAt(read, dirname(rel))
    return stack.ignores(rel, isDirectory)
  })

/** The walk options for a base the model named: naming an ignored or excluded directory lists it anyway. */
export const walkScope = (base: string, input: { readonly include_ignored?: boolean | undefined; readonly exclude?: ReadonlyArray<string> | undefined }) =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const configured = [...settings.excludePatterns, ...(input.exclude ?? [])]
    const named = base !== "" && (new GlobSet(configured).covers(base) || (yield* isIgnored(base, true)))
    return {
      base,
      includeIgnored: input.include_ignored === true || (named && (yield* isIgnored(base, true))),
      excludes: named ? configured.filter((pattern) => !new GlobSet([pattern]).covers(base)) : configured,
      namedHidden: named
    }
  })

