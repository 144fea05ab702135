/**
 * The HTML pages the research and peers benches serve on 127.0.0.1: one definition, so both measure the same page.
 */

/** An article-shaped HTML page of about `bytes` bytes: a main of sections, no navigation, scripts or footer. */
export const articlePage = (bytes: number): string => {
  const parts = ['<!doctype html><html><head><meta charset="utf-8"><title>Bench page</title></head><body><main>']
  let size = parts[0]!.length
  for (let section = 0; size < bytes - 200; section++) {
    const chunk = `<h2>Section ${section}</h2><p>Paragraph with <b>bold</b>, <a href="/s/${section}">a link</a> and text é ü ${"lorem ipsum dolor sit amet ".repeat(12)}</p><ul><li>one</li><li>two <code>x()</code></li></ul><table><tr><th>k</th><th>v</th></tr><tr><td>${section}</td><td>value</td></tr></table><pre><code>const s = ${section}\nreturn s</code></pre>`
    parts.push(chunk)
    size += chunk.length
  }
  parts.push("</main></body></html>")
  return parts.join("")
}
