// The helpers every part of the console uses. Nothing the app sends is parsed as HTML:
// elements are made with createElement and filled with textContent.

export const $ = (id) => document.getElementById(id);

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// A read from the stand-in's console API; a refusal becomes an error the caller shows.
export async function getJSON(path) {
  const response = await fetch(path, { cache: "no-store" });
  const body = await response.json();
  if (!body.ok) throw new Error(body.error || `HTTP ${response.status}`);
  return body;
}
