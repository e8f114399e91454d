// Unit tests of what Search Memories lists: memories, then the code group, built without VS Code.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { CodeFile, Memory, SearchResult } from "../protocol";
import { CODE_GROUP, CODE_INDEXING, codeRow, NO_MEMORIES, searchRows, searchTitle } from "../search";

const gotcha: Memory = { id: "01A", type: "gotcha", text: "Retrying charge_card double-charges" };

function range(line: number) {
  return { start: { line, character: 0 }, end: { line: line + 7, character: 0 } };
}

const payments: CodeFile = {
  file: "payments.py",
  uri: "file:///shop/payments.py",
  score: 0.03,
  is_test: false,
  chunks: [
    {
      uri: "file:///shop/payments.py",
      file: "payments.py",
      symbol: "charge_card",
      kind: "function",
      signature: "def charge_card(customer_id: str, amount_cents: int) -> str:",
      range: range(5),
    },
    { file: "payments.py", symbol: "_gateway_charge", range: range(15) },
  ],
};

const paymentsTest: CodeFile = {
  file: "tests/test_payments.py",
  is_test: true,
  chunks: [{ file: "tests/test_payments.py", symbol: "<module>", signature: '"""Tests of payments."""\nimport x', range: range(0) }],
};

function shape(result: SearchResult): string[] {
  return searchRows(result).map((row) => (row.kind === "memory" ? `memory ${row.memory.id}` : `${row.kind} ${row.label}`));
}

test("memories come first, then a Code separator and one row per file, best first", () => {
  assert.deepEqual(shape({ memories: [gotcha], files: [payments, paymentsTest] }), [
    "memory 01A",
    `separator ${CODE_GROUP}`,
    "code $(file-code) charge_card",
    "code $(file-code) tests/test_payments.py",
  ]);
});

test("a file's row opens at its best chunk and says where it is, whether it is a test, and its signature", () => {
  const row = codeRow(payments);
  assert.equal(row.kind, "code");
  if (row.kind !== "code") {
    return;
  }
  assert.equal(row.description, "payments.py:6"); // 1-based, as editors show lines
  assert.equal(row.detail, "def charge_card(customer_id: str, amount_cents: int) -> str:");
  assert.equal(row.chunk?.symbol, "charge_card");
  assert.deepEqual(row.chunk?.range?.start, { line: 5, character: 0 });
  const test = codeRow(paymentsTest);
  assert.equal(test.kind === "code" && test.description, "tests/test_payments.py:1 · test");
  assert.equal(test.kind === "code" && test.detail, '"""Tests of payments."""'); // one line of it
  assert.equal(test.kind === "code" && test.label, "$(file-code) tests/test_payments.py"); // the file, not "<module>"
});

test("no memories but code: the no-memories line, then still the code group", () => {
  assert.deepEqual(shape({ memories: [], files: [payments] }), [
    `message ${NO_MEMORIES}`,
    `separator ${CODE_GROUP}`,
    "code $(file-code) charge_card",
  ]);
});

test("nothing at all, or a server from before code search: no code group", () => {
  assert.deepEqual(shape({ memories: [] }), [`message ${NO_MEMORIES}`]);
  assert.deepEqual(shape({ memories: [gotcha], files: [] }), ["memory 01A"]);
});

test("a file without chunks still opens: at the file, labelled by its path", () => {
  const row = codeRow({ file: "setup.py", uri: "file:///shop/setup.py" });
  assert.equal(row.kind === "code" && row.label, "$(file-code) setup.py");
  assert.equal(row.kind === "code" && row.description, "setup.py");
  assert.equal(row.kind === "code" && row.chunk, undefined);
});

test("the title says when the search is by words alone", () => {
  assert.match(searchTitle({ memories: [], mode: "lexical", reason: "no model" }), /lexical/);
  assert.doesNotMatch(searchTitle({ memories: [], mode: "hybrid" }), /lexical/);
  assert.match(searchTitle(undefined), /Search Memories/);
});

test("while the server indexes the folder, the code group says so instead of being silently absent", () => {
  assert.deepEqual(shape({ memories: [gotcha], files: [], indexing: true }), [
    "memory 01A",
    `separator ${CODE_GROUP}`,
    `message ${CODE_INDEXING}`,
  ]);
  assert.deepEqual(shape({ memories: [gotcha], files: [] }), ["memory 01A"]); // indexed, and no code matched
});
