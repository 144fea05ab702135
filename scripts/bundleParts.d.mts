/** The types of scripts/bundleParts.mjs (plain JS, so `npm run build` needs no TypeScript loader). */
import type { Plugin } from "esbuild"

export declare const CLI_EXTERNAL: Array<string>
export declare const REQUIRE_BANNER: string
export declare const noAjv: Plugin
export declare const PROBE_MODULE: string
export declare const buildCallCommand: (
  esbuild: typeof import("esbuild"),
  options: { repo: string; dist: string; minify?: boolean; metafile?: boolean }
) => Promise<{ name: string; metafile: import("esbuild").Metafile | undefined }>
