// The DOM helpers every admin module uses.

// $ is the element with the id.
export const $ = (id) => document.getElementById(id);

// el makes an element: props are set as properties ("class" sets
// className, "dataset" is merged into its data-* attributes), children
// appended, null and undefined skipped.
export function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "class") e.className = v;
    else if (k === "dataset") Object.assign(e.dataset, v);
    else e[k] = v;
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}
