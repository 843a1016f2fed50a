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
  {
    why:
      'A view zone added or moved (the boundary line, a fold badge) schedules the diff editor to align both sides ' +
      'again on a later task. When the step\'s diff arrives first, the alignment computed with it already counts ' +
      'those zones: the scheduled one would only make every alignment zone again and paint a second frame.',
    file: /diffEditorViewZones[\\/]diffEditorViewZones\.js$/,
    find: `            state.read(reader);
            const renderSideBySide = this._options.renderSideBySide.read(reader);
            const innerHunkAlignment = renderSideBySide;`,
    replace: `            state.read(reader);
            updateImmediately.cancel();
            const renderSideBySide = this._options.renderSideBySide.read(reader);
            const innerHunkAlignment = renderSideBySide;`,
  },
  {
    why:
      'The side-by-side alignment asks each side for every model line\'s wrapped line count, one call chain per line ' +
      'into that line\'s projection (~33k lines per step, the walk dominated by reaching each projection). The view ' +
      'model keeps the same counts in one array (the prefix sum over its lines, kept equal to each projection\'s ' +
      'count through edits, wrapping and hidden areas): read there when it has one entry per model line, else per line as before.',
    file: /diffEditorViewZones[\\/]diffEditorViewZones\.js$/,
    find: `    if (hasWrapping) {
        for (let i = 1; i <= editor.getModel().getLineCount(); i++) {
            const lineCount = coordinatesConverter.getModelLineViewLineCount(i);
            if (lineCount > 1) {
                wrappingZoneHeights.push({ lineNumber: i, heightInPx: editorLineHeight * (lineCount - 1) });
            }
        }
    }`,
    replace: `    const viewLineCounts = editor._getViewModel()._lines?.projectedModelLineLineCounts?._values;
    if (hasWrapping && Array.isArray(viewLineCounts) && viewLineCounts.length === editor.getModel().getLineCount()) {
        for (let i = 0; i < viewLineCounts.length; i++) {
            if (viewLineCounts[i] > 1) {
                wrappingZoneHeights.push({ lineNumber: i + 1, heightInPx: editorLineHeight * (viewLineCounts[i] - 1) });
            }
        }
    }
    else if (hasWrapping) {
        for (let i = 1; i <= editor.getModel().getLineCount(); i++) {
            const lineCount = coordinatesConverter.getModelLineViewLineCount(i);
            if (lineCount > 1) {
                wrappingZoneHeights.push({ lineNumber: i, heightInPx: editorLineHeight * (lineCount - 1) });
            }
        }
    }`,
  },
  {
    why:
      'The diff marks changed characters with a decoration drawn in the editor\'s overlay layer, whose place on screen ' +
      'is read from the DOM (getClientRects) after the frame wrote its lines: a forced layout of the page in the middle ' +
      'of every step\'s frame (the new lines of an append are all marked). Drawn as a class on the text\'s own span ' +
      '(inline), the same colour is placed by the line\'s rendering, with nothing measured.',
    file: /diffEditor[\\/]registrations\.contribution\.js$/,
    find: `const diffAddDecoration = ModelDecorationOptions.register({
    className: 'char-insert',
    description: 'char-insert',
    shouldFillLineOnLineBreak: true,
});`,
    replace: `const diffAddDecoration = ModelDecorationOptions.register({
    inlineClassName: 'char-insert',
    description: 'char-insert',
});`,
  },
  {
    why: 'As the inserted characters (above): the removed characters are marked on their own span, not measured in the DOM.',
    file: /diffEditor[\\/]registrations\.contribution\.js$/,
    find: `const diffDeleteDecoration = ModelDecorationOptions.register({
    className: 'char-delete',
    description: 'char-delete',
    shouldFillLineOnLineBreak: true,
});`,
    replace: `const diffDeleteDecoration = ModelDecorationOptions.register({
    inlineClassName: 'char-delete',
    description: 'char-delete',
});`,
  },
  {
    why:
      'Every edit that changes a side\'s view line count (each step) recomputes all the editor\'s options, because the ' +
      'minimap\'s layout depends on that count; nothing else in the options does. With the minimap off the options ' +
      'computed are the same (no change event): the count is kept and the options are computed with it when next ' +
      'recomputed for another reason (~0.5 ms of a profiled step). Needs EditorOptions, imported below.',
    file: /editor[\\/]browser[\\/]config[\\/]editorConfiguration\.js$/,
    find: `    setViewLineCount(viewLineCount) {
        if (this._viewLineCount === viewLineCount) {
            return;
        }
        this._viewLineCount = viewLineCount;
        this._recomputeOptions();
    }`,
    replace: `    setViewLineCount(viewLineCount) {
        if (this._viewLineCount === viewLineCount) {
            return;
        }
        this._viewLineCount = viewLineCount;
        if (!this.options.get(EditorOptions.minimap.id).enabled) {
            return;
        }
        this._recomputeOptions();
    }`,
  },
  {
    why: 'The option above is read by its descriptor (EditorOptions.minimap.id), not by a number that an upgrade could renumber.',
    file: /editor[\\/]browser[\\/]config[\\/]editorConfiguration\.js$/,
    find: `import { ComputeOptionsMemory, editorOptionsRegistry, ConfigurationChangedEvent } from '../../common/config/editorOptions.js';`,
    replace: `import { ComputeOptionsMemory, editorOptionsRegistry, ConfigurationChangedEvent, EditorOptions } from '../../common/config/editorOptions.js';`,
  },
  {
    why:
      'A whole-line decoration is drawn as an element of its own in each line\'s overlay row (a div per line on ' +
      'screen, made again whenever every line is new). One opted in with the description \'line-class\' (the consumed ' +
      'tint, set on every consumed line) is drawn as a class of the row itself, which already has the line\'s box: ' +
      'its className is kept per line here and set on the row (the patch of viewOverlays.js below).',
    file: /viewParts[\\/]decorations[\\/]decorations\.js$/,
    find: `            const decorationOutput = ('<div class="cdr '
                + d.options.className
                + '" style="left:0;width:100%;"></div>');
            const startLineNumber = Math.max(d.range.startLineNumber, visibleStartLineNumber);
            const endLineNumber = Math.min(d.range.endLineNumber, visibleEndLineNumber);
            for (let j = startLineNumber; j <= endLineNumber; j++) {
                const lineIndex = j - visibleStartLineNumber;
                output[lineIndex] += decorationOutput;
            }`,
    replace: `            const onRow = d.options.description === 'line-class';
            const decorationOutput = onRow ? (' ' + d.options.className) : ('<div class="cdr '
                + d.options.className
                + '" style="left:0;width:100%;"></div>');
            const target = onRow ? this._rowClassNames : output;
            const startLineNumber = Math.max(d.range.startLineNumber, visibleStartLineNumber);
            const endLineNumber = Math.min(d.range.endLineNumber, visibleEndLineNumber);
            for (let j = startLineNumber; j <= endLineNumber; j++) {
                const lineIndex = j - visibleStartLineNumber;
                target[lineIndex] += decorationOutput;
            }`,
  },
  {
    why: 'The row classes above start empty for each line on screen, at each render.',
    file: /viewParts[\\/]decorations[\\/]decorations\.js$/,
    find: `        // Render first whole line decorations and then regular decorations
        this._renderWholeLineDecorations(ctx, decorations, output);`,
    replace: `        this._rowClassNames = output.map(() => '');
        // Render first whole line decorations and then regular decorations
        this._renderWholeLineDecorations(ctx, decorations, output);`,
  },
  {
    why: 'The row classes above, read by the overlay row of each line (viewOverlays.js below).',
    file: /viewParts[\\/]decorations[\\/]decorations\.js$/,
    find: `    render(startLineNumber, lineNumber) {
        if (!this._renderResult) {`,
    replace: `    renderRowClassName(startLineNumber, lineNumber) {
        return this._rowClassNames?.[lineNumber - startLineNumber] ?? '';
    }
    render(startLineNumber, lineNumber) {
        if (!this._renderResult) {`,
  },
  {
    why:
      'Each line\'s overlay row takes the classes its overlays give it (the whole-line decorations opted in above): ' +
      'the row is written again when they change, as when its content does.',
    file: /editor[\\/]browser[\\/]view[\\/]viewOverlays\.js$/,
    find: `        let result = '';
        for (let i = 0, len = this._dynamicOverlays.length; i < len; i++) {
            const dynamicOverlay = this._dynamicOverlays[i];
            result += dynamicOverlay.render(viewportData.startLineNumber, lineNumber);
        }
        if (this._renderedContent === result) {
            // No rendering needed
            return false;
        }
        this._renderedContent = result;
        sb.appendString('<div style="top:');`,
    replace: `        let result = '';
        let rowClassName = '';
        for (let i = 0, len = this._dynamicOverlays.length; i < len; i++) {
            const dynamicOverlay = this._dynamicOverlays[i];
            result += dynamicOverlay.render(viewportData.startLineNumber, lineNumber);
            if (dynamicOverlay.renderRowClassName) {
                rowClassName += dynamicOverlay.renderRowClassName(viewportData.startLineNumber, lineNumber);
            }
        }
        const rendered = rowClassName + '>' + result;
        if (this._renderedContent === rendered) {
            // No rendering needed
            return false;
        }
        this._renderedContent = rendered;
        sb.appendString(rowClassName ? '<div class="' + rowClassName.trim() + '" style="top:' : '<div style="top:');`,
  },
];
/** @type {import('esbuild').Plugin} */
const monacoPatches = {
  name: 'monaco-patches',
  setup(build) {
    /** The patches applied in this build: one whose file no longer loads (moved, renamed, not imported) fails it too. */
    const applied = new Set();
    // One handler per file (esbuild uses the first handler that matches a file).
    for (const file of new Set(PATCHES.map((p) => p.file.source))) {
      build.onLoad({ filter: new RegExp(file) }, async (args) => {
        let source = await fs.promises.readFile(args.path, 'utf8');
        for (const patch of PATCHES.filter((p) => p.file.source === file)) {
          const parts = source.split(patch.find);
          if (parts.length !== 2) throw new Error(`monaco-patches: the snippet to edit is not once in ${args.path} (Monaco upgraded?): ${patch.why}`);
          // Joined, not String.replace: the replacement is inserted literally (no `$&` patterns).
          source = parts.join(patch.replace);
          applied.add(patch);
        }
        return { contents: source, loader: 'js' };
      });
    }
    build.onEnd((result) => {
      const missing = PATCHES.filter((p) => !applied.has(p));
      applied.clear();
      if (result.errors.length > 0 || missing.length === 0) return;
      return { errors: missing.map((p) => ({ text: `monaco-patches: no file matching ${p.file} was bundled (Monaco upgraded?): ${p.why}` })) };
    });
  },
};

module.exports = { monacoPatches };
