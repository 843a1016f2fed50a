/// <reference types="mocha" />
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

suite('harness', () => {
  test('runs inside a real VS Code 1.100 extension host', () => {
    assert.match(vscode.version, /^1\.100\./);
    assert.equal(typeof process.versions.node, 'string');
  });
});
