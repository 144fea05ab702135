// The review page's syntax highlighting of diff lines (a small tokenizer: comments, strings, numbers,
// keywords), as text nodes in spans.

import { el } from "./dom.js"

const KEYWORDS = new Set(
  "const let var function return if else for while do switch case break continue new class extends import export from default async await try catch finally throw typeof instanceof in of yield def elif lambda pass raise with as fn pub struct enum impl match use mod package func go type interface true false null undefined None True False nil self this".split(
    " "
  )
)
const HASH_COMMENT = /\.(py|sh|bash|rb|ya?ml|toml|pl|r|conf|ini)$/i
const CODE =
  /\.(m?[jt]sx?|c[jt]s|py|sh|bash|rb|go|rs|java|kt|c|h|cc|cpp|hpp|cs|swift|php|ya?ml|toml|json|css|scss|sql|lua|pl|r)$/i
export const highlight = (text, path) => {
  if (!CODE.test(path) || text.length > 2000) return [text]
  const hash = HASH_COMMENT.test(path)
  const pattern = hash
    ? /(#.*$)|("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?)|(\b\d[\d_.xXa-fA-F]*\b)|([A-Za-z_$][\w$]*)/g
    : /(\/\/.*$|\/\*.*?(?:\*\/|$))|("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|`(?:[^`\\]|\\.)*`?)|(\b\d[\d_.xXa-fA-F]*\b)|([A-Za-z_$][\w$]*)/g
  const out = []
  let last = 0
  for (const match of text.matchAll(pattern)) {
    const [whole, comment, string, number, ident] = match
    if (ident !== undefined && !KEYWORDS.has(ident)) continue
    if (match.index > last) out.push(text.slice(last, match.index))
    const cls =
      comment !== undefined ? "tok-c" : string !== undefined ? "tok-s" : number !== undefined ? "tok-n" : "tok-k"
    out.push(el("span", { class: cls }, whole))
    last = match.index + whole.length
  }
  if (last < text.length) out.push(text.slice(last))
  return out
}
