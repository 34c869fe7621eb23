/** SVG elements made from attribute maps; an attribute that is undefined or null is left out. */

export type Attrs = Record<string, string | number | boolean | undefined | null>;

const SVGNS = 'http://www.w3.org/2000/svg';

export function el(tag: string, attrs: Attrs, parent?: Element | null, text?: string): SVGElement {
  const n = document.createElementNS(SVGNS, tag);
  for (const k in attrs) {
    const a = attrs[k];
    if (a !== undefined && a !== null) n.setAttribute(k, String(a));
  }
  if (text !== undefined) n.textContent = text;
  if (parent) parent.appendChild(n);
  return n;
}
