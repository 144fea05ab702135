/** Helpers of the race specs: waiting for the racer process to signal that it runs. */
import * as fs from "node:fs/promises"
import * as path from "node:path"

/** Resolves once `file` exists (the racer writes it when it starts); fails after about 5 s. */
export const waitFor = async (file: string) => {
  for (let i = 0; i < 500; i++) {
    if (
      await fs.stat(file).then(
        () => true,
        () => false
      )
    )
      return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`the racer never started (${path.basename(file)})`)
}
