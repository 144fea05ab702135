/**
 * Set up by vitest.mutation-fast.config.ts only: a property that fails under a mutant ends at its first
 * counterexample (no shrinking), so a killed mutant costs one failing run, not a shrink of minutes.
 */
import fc from "fast-check"

fc.configureGlobal({ endOnFailure: true })
