/**
 * Issue 10 §4 on the host-free fallback (the Deno host's search): the ReDoS regex runs in a module Web
 * Worker that is terminated at searchTimeoutMs, so the call answers complete: false with the files not
 * searched, and the same runtime answers the next calls.
 */
Deno.test("deno/search: a catastrophic regex answers complete: false at the deadline, and the next call is answered", async () => {
  const root = await Deno.makeTempDir({ prefix: "aw-redos-deno-" })
  try {
    await Deno.writeTextFile(`${root}/victim.txt`, `${"a".repeat(35)}!`)
    await Deno.writeTextFile(`${root}/ok.txt`, "aaa\n")
    const child = new URL("./support/redos_child.ts", import.meta.url).pathname
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", child, root],
      stdout: "piped",
      stderr: "piped"
    }).output()
    const lines = new TextDecoder()
      .decode(output.stdout)
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
    const fail = (why: string) => {
      throw new Error(
        `${why}: ${new TextDecoder().decode(output.stdout).slice(0, 1500)} ${new TextDecoder().decode(output.stderr).slice(0, 500)}`
      )
    }
    if (lines.length !== 4) fail("four answers expected")
    for (const redos of lines.slice(0, 2)) {
      if (
        redos.data.complete !== false ||
        redos.data.timedOut !== true ||
        !redos.data.notSearched.includes("victim.txt")
      )
        fail("a ReDoS answer")
    }
    if (lines[2].data.complete !== true || lines[2].data.matches.length !== 1) fail("the next search")
    if (lines[3].ok !== true) fail("the next read")
  } finally {
    await Deno.remove(root, { recursive: true })
  }
})
