/**
 * The few Monaco internals the inspector's diff provider uses (webview/diff-provider.ts).
 * monaco-editor ships no typings for them; these describe only what is used.
 */
declare module 'monaco-editor/base/common/event.js' {
  export class Emitter<T> {
    readonly event: (listener: (value: T) => void) => { dispose(): void };
    fire(value: T): void;
    dispose(): void;
  }
}

declare module 'monaco-editor/editor/common/diff/rangeMapping.js' {
  interface ShiftableRange {
    delta(lineCount: number): ShiftableRange;
  }
  interface ShiftableLineRange {
    readonly startLineNumber: number;
    readonly endLineNumberExclusive: number;
    delta(offset: number): ShiftableLineRange;
  }
  export class RangeMapping {
    constructor(originalRange: ShiftableRange, modifiedRange: ShiftableRange);
    readonly originalRange: ShiftableRange;
    readonly modifiedRange: ShiftableRange;
  }
  export class DetailedLineRangeMapping {
    constructor(original: ShiftableLineRange, modified: ShiftableLineRange, innerChanges: readonly RangeMapping[] | undefined);
    readonly original: ShiftableLineRange;
    readonly modified: ShiftableLineRange;
    readonly innerChanges: readonly RangeMapping[] | undefined;
  }
}

declare module 'monaco-editor/editor/common/diff/linesDiffComputers.js' {
  import type { DetailedLineRangeMapping } from 'monaco-editor/editor/common/diff/rangeMapping.js';
  export const linesDiffComputers: {
    getDefault(): {
      computeDiff(
        originalLines: string[],
        modifiedLines: string[],
        options: { ignoreTrimWhitespace: boolean; maxComputationTimeMs: number; computeMoves: boolean },
      ): { readonly changes: readonly DetailedLineRangeMapping[]; readonly hitTimeout: boolean };
    };
  };
}

declare module 'monaco-editor/editor/standalone/browser/standaloneServices.js' {
  export const StandaloneServices: {
    /** Takes effect on the first call only (before any editor or service is used). */
    initialize(overrides: Record<string, unknown>): unknown;
  };
}
