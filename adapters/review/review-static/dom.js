// The review page's shared pieces: its state, the element builder and the small text helpers. The page is
// plain ES modules, no build step (index.html loads app.js, which imports the others). Everything the
// workspace supplies (titles, diffs, plans, argv) is put in the page as text nodes: nothing from the server
// is parsed as HTML.

export const state = { data: undefined, csrf: "", view: "unified", tails: new Map(), loading: false, again: false }

export const el = (tag, attrs, ...children) => {
  const node = document.createElement(tag)
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === false) continue
    if (key === "class") node.className = value
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value)
    else node.setAttribute(key, value === true ? "" : String(value))
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue
    node.append(typeof child === "string" ? document.createTextNode(child) : child)
  }
  return node
}

export const ago = (iso, now) => {
  const minutes = Math.max(0, Math.floor((now - Date.parse(iso)) / 60000))
  if (minutes < 1) return "just now"
  if (minutes < 60) return `${minutes}m ago`
  const hours = Math.floor(minutes / 60)
  return hours < 24 ? `${hours}h ${minutes % 60}m ago` : `${Math.floor(hours / 24)}d ${hours % 24}h ago`
}
export const until = (iso, now) => {
  const minutes = Math.max(0, Math.floor((Date.parse(iso) - now) / 60000))
  const hours = Math.floor(minutes / 60)
  return hours > 0 ? `in ${hours}h ${minutes % 60}m` : `in ${minutes}m`
}
const word = (part) => (part === "" || /[\s"'\\$`|&;<>()*?]/.test(part) ? JSON.stringify(part) : part)
export const argvLine = (argv) => argv.map(word).join(" ")
