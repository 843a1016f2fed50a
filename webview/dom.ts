/** The webviews' one DOM helper, without dependencies (the session view loads no web components). */
type Props = { className?: string; text?: string; title?: string; attrs?: Record<string, string> };

/** Creates an element; `text` is set as text, never parsed. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Node[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.className) node.className = props.className;
  if (props.text !== undefined) node.textContent = props.text;
  if (props.title) node.title = props.title;
  for (const [k, v] of Object.entries(props.attrs ?? {})) node.setAttribute(k, v);
  node.append(...children);
  return node;
}
