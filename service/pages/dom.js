/* Small DOM helpers: elements and SVG from attributes and children, always as text (never
 * HTML), and a container refilled keeping the collapsible blocks a reader opened. */

const SVG_NS = "http://www.w3.org/2000/svg";

export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

export function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    if (k === "text") node.textContent = v;
    else node.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) if (c) node.append(c);
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

/* Replace a container's content, keeping which collapsible blocks the reader opened or closed. */
export function replaceKeepingOpen(container, ...nodes) {
  const was = new Map([...container.querySelectorAll("details[data-key]")].map((d) => [d.dataset.key, d.open]));
  clear(container).append(...nodes);
  for (const d of container.querySelectorAll("details[data-key]")) {
    if (was.has(d.dataset.key)) d.open = was.get(d.dataset.key);
  }
}
