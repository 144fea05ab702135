// The review page's safe markdown (headings, lists, code, paragraphs), as text nodes only: a plan's text.

import { el } from "./dom.js"

const inline = (text) => {
  const out = []
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*/g
  let last = 0
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) out.push(text.slice(last, match.index))
    out.push(match[1] !== undefined ? el("code", {}, match[1]) : el("strong", {}, match[2]))
    last = match.index + match[0].length
  }
  if (last < text.length) out.push(text.slice(last))
  return out
}
export const markdown = (text) => {
  const root = el("div", { class: "md" })
  let list
  let fence
  for (const line of text.split("\n")) {
    if (fence !== undefined) {
      if (/^```/.test(line)) {
        root.append(el("pre", {}, fence.join("\n")))
        fence = undefined
      } else fence.push(line)
      continue
    }
    if (/^```/.test(line)) {
      fence = []
      list = undefined
      continue
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line)
    const bullet = /^\s*[-*]\s+(.*)$/.exec(line)
    const ordered = /^\s*\d+[.)]\s+(.*)$/.exec(line)
    if (heading) {
      list = undefined
      root.append(el(`h${Math.min(6, heading[1].length + 2)}`, {}, inline(heading[2])))
    } else if (bullet || ordered) {
      const tag = bullet ? "ul" : "ol"
      if (list === undefined || list.tagName.toLowerCase() !== tag) {
        list = el(tag, {})
        root.append(list)
      }
      list.append(el("li", {}, inline((bullet ?? ordered)[1])))
    } else if (line.trim() === "") list = undefined
    else {
      list = undefined
      root.append(el("p", {}, inline(line)))
    }
  }
  if (fence !== undefined) root.append(el("pre", {}, fence.join("\n")))
  return root
}
