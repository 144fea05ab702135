/** Pages the research specs serve: a document around a body, and the article page fetch and the stream's equality both read. */

/** A whole HTML document with `body` (and `head`, a title by default). */
export const page = (body: string, head = "<title>A page</title>") =>
  `<!doctype html><html><head>${head}</head><body>${body}</body></html>`

/** An article: a header, navigation and an aside-ish block outside main; headings, lists, a table, code, a script and a style in it. */
export const ARTICLE_PAGE = page(
  `<header><a href="/">Site</a> Top banner</header><nav><a href="/a">Nav A</a></nav>
           <div class="aside-ish"><p>Related stories</p></div>
           <main><h1>The title</h1><p>First <em>paragraph</em>.</p>
             <h2>Steps</h2><ol><li>Install</li><li>Run</li></ol>
             <ul><li>apple</li><li>pear</li></ul>
             <table><tr><th>Name</th><th>Value</th></tr><tr><td>a</td><td>1</td></tr></table>
             <pre><code>const x = 1
console.log(x)</code></pre>
             <script>window.evil = 1</script><style>.x{color:red}</style>
           </main>
           <footer>Copyright footer</footer>`,
  "<title>Article</title><style>body{}</style><script>var tracking = 1</script>"
)
