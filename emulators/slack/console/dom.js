// The two DOM helpers every part of the console uses. Nothing the app sends is parsed as
// HTML: elements are made with createElement and filled with textContent.

export const $ = (id) => document.getElementById(id);

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}
