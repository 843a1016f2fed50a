// Build-time edits of Monaco's sources for the inspector webview (an esbuild plugin used by esbuild.js).
// Each edit replaces one exact snippet; a Monaco upgrade that changes it fails the build instead of
// silently dropping the edit.
const fs = require('node:fs');

/** @type {{ file: RegExp, find: string, replace: string, why: string }[]} */
const PATCHES = [
  {
    why:
      'With word wrap on, the side-by-side diff pairs every wrapped line of the two sides outside the changes and ' +
      'emits an alignment (then a filler view zone and its DOM node) even where both sides wrap to the same height, ' +
      'about one per message of a 10k-message window, all made again on every step. An alignment of equal heights ' +
      'yields a zone of 0 px: it is left out.',
    file: /diffEditorViewZones[\\/]diffEditorViewZones\.js$/,
    find: `            else {
                originalLineHeightOverrides.dequeue();
                modifiedLineHeightOverrides.dequeue();
            }
            result.push({`,
    replace: `            else {
                originalLineHeightOverrides.dequeue();
                modifiedLineHeightOverrides.dequeue();
                if (origNext.heightInPx === modNext.heightInPx) {
                    continue;
                }
            }
            result.push({`,
  },
];

/** @type {import('esbuild').Plugin} */
const monacoPatches = {
  name: 'monaco-patches',
  setup(build) {
    for (const patch of PATCHES) {
      build.onLoad({ filter: patch.file }, async (args) => {
        const source = await fs.promises.readFile(args.path, 'utf8');
        if (!source.includes(patch.find)) throw new Error(`monaco-patches: the snippet to edit is gone from ${args.path} (Monaco upgraded?): ${patch.why}`);
        return { contents: source.replace(patch.find, patch.replace), loader: 'js' };
      });
    }
  },
};

module.exports = { monacoPatches };
