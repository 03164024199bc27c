/**
 * What the pages' scripts share (bundled into each by codegen/EmbedPages.ts): their elements, and DOM nodes built
 * from text only, so what they show from the network (agent output, a document) is never parsed as markup, and
 * the error box every page has.
 */

/** An element of the page (its index.html): a missing one is a bug of the page, caught by the browser tests. */
export const $ = <E extends HTMLElement = HTMLElement>(id: string): E => document.getElementById(id) as E

/** Shows `text` in the page's error box (`#error`). */
export function showErrorText(text: string): void {
  const box = $("error")
  box.textContent = text
  box.hidden = false
}

/** Hides the page's error box and empties it. */
export function clearError(): void {
  $("error").hidden = true
  $("error").textContent = ""
}

/** A child of `el`: a node, a text, or nothing (skipped). */
export type Child = Node | string | null

/**
 * An element with attributes (`text` its text content, `className` its classes, `onclick` a click listener) and
 * children.
 */
export function el(
  tag: string,
  attrs?: Readonly<Record<string, string | ((event: Event) => void)>> | null,
  children?: ReadonlyArray<Child>
): HTMLElement {
  const node = document.createElement(tag)
  if (attrs) {
    Object.keys(attrs).forEach((k) => {
      const value = attrs[k]!
      if (typeof value === "function") {
        if (k === "onclick") node.addEventListener("click", value)
      } else if (k === "text") node.textContent = value
      else if (k === "className") node.className = value
      else node.setAttribute(k, value)
    })
  }
  ;(children || []).forEach((c) => {
    if (c) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c)
  })
  return node
}
