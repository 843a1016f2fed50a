/**
 * Monaco's theme, derived from the webview's `--vscode-*` variables, so the
 * diff looks like the user's VS Code theme (light, dark, high contrast) and
 * follows theme changes.
 */
import * as monaco from './monaco';

const THEME = 'prefix-lens';

/** Monaco colour id → VS Code CSS variable. */
const COLOURS: Record<string, string> = {
  'editor.background': '--vscode-editor-background',
  'editor.foreground': '--vscode-editor-foreground',
  'editorLineNumber.foreground': '--vscode-editorLineNumber-foreground',
  'editorLineNumber.activeForeground': '--vscode-editorLineNumber-activeForeground',
  'editor.selectionBackground': '--vscode-editor-selectionBackground',
  'editor.inactiveSelectionBackground': '--vscode-editor-inactiveSelectionBackground',
  'editor.lineHighlightBackground': '--vscode-editor-lineHighlightBackground',
  'editorGutter.background': '--vscode-editorGutter-background',
  'editorError.foreground': '--vscode-editorError-foreground',
  'editorWarning.foreground': '--vscode-editorWarning-foreground',
  'editorInfo.foreground': '--vscode-editorInfo-foreground',
  'diffEditor.insertedTextBackground': '--vscode-diffEditor-insertedTextBackground',
  'diffEditor.removedTextBackground': '--vscode-diffEditor-removedTextBackground',
  'diffEditor.insertedLineBackground': '--vscode-diffEditor-insertedLineBackground',
  'diffEditor.removedLineBackground': '--vscode-diffEditor-removedLineBackground',
  'diffEditor.diagonalFill': '--vscode-diffEditor-diagonalFill',
  'scrollbarSlider.background': '--vscode-scrollbarSlider-background',
  'scrollbarSlider.hoverBackground': '--vscode-scrollbarSlider-hoverBackground',
  'editorWidget.background': '--vscode-editorWidget-background',
  'editorWidget.border': '--vscode-editorWidget-border',
  'editorHoverWidget.background': '--vscode-editorHoverWidget-background',
  'editorHoverWidget.border': '--vscode-editorHoverWidget-border',
  'focusBorder': '--vscode-focusBorder',
  'contrastBorder': '--vscode-contrastBorder',
};

/** A CSS colour (any syntax) as #rrggbbaa, via the browser's own parser; undefined when unset. */
function cssColourToHex(value: string, probe: HTMLElement): string | undefined {
  if (!value.trim()) return undefined;
  probe.style.color = '';
  probe.style.color = value.trim();
  if (!probe.style.color) return undefined;
  const rgb = getComputedStyle(probe).color.match(/[\d.]+/g);
  if (!rgb || rgb.length < 3) return undefined;
  const [r, g, b, a = '1'] = rgb;
  const hex = (n: number) => Math.round(Math.max(0, Math.min(255, n))).toString(16).padStart(2, '0');
  return `#${hex(Number(r))}${hex(Number(g))}${hex(Number(b))}${hex(Number(a) * 255)}`;
}

function baseTheme(): monaco.editor.BuiltinTheme {
  const body = document.body.classList;
  if (body.contains('vscode-high-contrast-light')) return 'hc-light';
  if (body.contains('vscode-high-contrast')) return 'hc-black';
  return body.contains('vscode-dark') ? 'vs-dark' : 'vs';
}

/** Defines and applies the theme from the current variables. */
export function applyTheme(): void {
  const probe = document.createElement('span');
  probe.style.display = 'none';
  document.body.append(probe);
  const style = getComputedStyle(document.documentElement);
  const colors: Record<string, string> = {};
  for (const [id, variable] of Object.entries(COLOURS)) {
    const hex = cssColourToHex(style.getPropertyValue(variable), probe);
    if (hex) colors[id] = hex;
  }
  probe.remove();
  monaco.editor.defineTheme(THEME, { base: baseTheme(), inherit: true, rules: [], colors });
  monaco.editor.setTheme(THEME);
}

/** Re-applies the theme whenever VS Code switches it (body class / root style changes). */
export function followTheme(): void {
  applyTheme();
  let queued = false;
  const observer = new MutationObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      applyTheme();
    });
  });
  observer.observe(document.body, { attributes: true, attributeFilter: ['class'] });
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['style', 'class'] });
}

export const editorFont = () => {
  const style = getComputedStyle(document.documentElement);
  const family = style.getPropertyValue('--vscode-editor-font-family').trim();
  const size = Number.parseFloat(style.getPropertyValue('--vscode-editor-font-size'));
  return { fontFamily: family || 'monospace', fontSize: Number.isFinite(size) && size > 0 ? size : 13 };
};

export { THEME };
