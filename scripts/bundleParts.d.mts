/** The types of scripts/bundleParts.mjs (plain JS, so `npm run build` needs no TypeScript loader). */
import type { Plugin } from "esbuild"

export declare const CLI_EXTERNAL: Array<string>
export declare const REQUIRE_BANNER: string
export declare const noAjv: Plugin
