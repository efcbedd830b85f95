// The selections of the compiler-judged refactor suite for TS/JS (benches/refactor_judged.py):
// every place a kind could be asked for, found with TypeScript's own parser so the candidates do
// not depend on the syntax trees filekit uses.
//
// usage: node refactor_judged_select.js <typescript module dir> <root> <file>...
// prints one JSON object per line: {kind, file, startLine, startColumn, endLine, endColumn}
// (lines from 1, columns from 0 in characters, as file_edit's selectionRange counts them).

"use strict";
const fs = require("fs");
const path = require("path");

const [tsDir, root, ...files] = process.argv.slice(2);
const ts = require(tsDir);
const K = ts.SyntaxKind;

function position(sf, text, pos) {
  const lc = sf.getLineAndCharacterOfPosition(pos);
  const lineStart = sf.getPositionOfLineAndCharacter(lc.line, 0);
  // TypeScript counts UTF-16 units; selectionRange counts characters.
  const column = Array.from(text.slice(lineStart, pos)).length;
  return [lc.line + 1, column];
}

function emit(kind, file, sf, text, start, end, extra) {
  const [startLine, startColumn] = position(sf, text, start);
  const [endLine, endColumn] = position(sf, text, end);
  process.stdout.write(
    JSON.stringify({ kind, file, startLine, startColumn, endLine, endColumn, ...extra }) + "\n",
  );
}

// add_import: every name a named import takes from a relative module (not renamed). The range
// emitted is what is removed from the file before add_import is asked to bring the name back:
// the name with its comma, or the whole declaration (and its line end) when it is the only one.
function namedImports(sf, text, file) {
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier)) continue;
    if (!st.moduleSpecifier.text.startsWith(".")) continue;
    const clause = st.importClause;
    if (!clause || clause.name || !clause.namedBindings || !ts.isNamedImports(clause.namedBindings)) continue;
    const els = clause.namedBindings.elements;
    els.forEach((el, i) => {
      if (el.propertyName) return;
      let start, end;
      if (els.length === 1) {
        start = st.getStart(sf);
        end = text[st.end] === "\n" ? st.end + 1 : st.end;
      } else if (i < els.length - 1) {
        start = el.getStart(sf);
        end = els[i + 1].getStart(sf);
      } else {
        start = els[i - 1].end;
        end = el.end;
      }
      emit("add_import", file, sf, text, start, end, { symbol: el.name.text });
    });
  }
}

// Is `n` in a place where an expression is evaluated (not a type, an import, a property name,
// a decorator, an enum member's value)?
function valuePosition(n) {
  for (let p = n.parent, c = n; p; c = p, p = p.parent) {
    if (ts.isTypeNode(p) || ts.isImportDeclaration(p) || ts.isExportDeclaration(p)) return false;
    if (ts.isImportEqualsDeclaration(p) || ts.isExternalModuleReference(p)) return false;
    if (ts.isDecorator(p) || ts.isEnumMember(p)) return false;
    if ((ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p) || ts.isMethodDeclaration(p)) && p.name === c)
      return false;
    if (ts.isPropertyAccessExpression(p) && p.name === c) return false;
    if (ts.isLiteralTypeNode(p)) return false;
    if (ts.isFunctionLike(p) || ts.isSourceFile(p) || ts.isBlock(p)) return true;
  }
  return true;
}

// Expressions worth extracting: calls, `new`, binary operations, literals, property reads.
function extractable(n) {
  if (!valuePosition(n)) return false;
  const p = n.parent;
  if (ts.isExpressionStatement(p)) return false;
  if (ts.isCallExpression(n)) {
    return n.expression.kind !== K.SuperKeyword && n.expression.kind !== K.ImportKeyword;
  }
  if (ts.isNewExpression(n)) return true;
  if (ts.isBinaryExpression(n)) {
    const op = n.operatorToken.kind;
    return !(op >= K.FirstAssignment && op <= K.LastAssignment) && op !== K.CommaToken;
  }
  if (ts.isStringLiteral(n) || ts.isNumericLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) return true;
  if (ts.isPropertyAccessExpression(n)) {
    const assigned =
      ts.isBinaryExpression(p) && p.left === n && p.operatorToken.kind >= K.FirstAssignment &&
      p.operatorToken.kind <= K.LastAssignment;
    const called = (ts.isCallExpression(p) || ts.isNewExpression(p)) && p.expression === n;
    const chained = ts.isPropertyAccessExpression(p) && p.expression === n;
    const updated = ts.isPrefixUnaryExpression(p) || ts.isPostfixUnaryExpression(p) || ts.isDeleteExpression(p);
    return !assigned && !called && !chained && !updated;
  }
  return false;
}

// The type annotations a declaration writes (parameters, variables, properties, returns).
function annotation(n) {
  const p = n.parent;
  if (!ts.isTypeNode(n) || !p || p.type !== n) return false;
  return (
    ts.isParameter(p) || ts.isVariableDeclaration(p) || ts.isPropertyDeclaration(p) ||
    ts.isPropertySignature(p) || ts.isFunctionDeclaration(p) || ts.isMethodDeclaration(p) ||
    ts.isArrowFunction(p) || ts.isFunctionExpression(p)
  );
}

// A function whose body returns (or is) a `.then`/`.catch`/`.finally` chain.
function promiseChain(e) {
  while (e && ts.isParenthesizedExpression(e)) e = e.expression;
  return (
    !!e && ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) &&
    ["then", "catch", "finally"].includes(e.expression.name.text)
  );
}
function returnsChain(fn) {
  if (!fn.body) return false;
  if (!ts.isBlock(fn.body)) return promiseChain(fn.body);
  let found = false;
  const visit = (n) => {
    if (found || (n !== fn.body && ts.isFunctionLike(n))) return;
    if (ts.isReturnStatement(n) && promiseChain(n.expression)) found = true;
    ts.forEachChild(n, visit);
  };
  visit(fn.body);
  return found;
}

// extract_function / extract_method: every statement of a function's or method's body, and
// every two consecutive ones (a method's in a class: extract_method; elsewhere
// extract_function), as an agent selects code to move out.
function inClass(n) {
  for (let p = n.parent; p; p = p.parent) if (ts.isClassLike(p)) return true;
  return false;
}
function statementRuns(fn, sf, text, file) {
  const body = fn.body;
  if (!body || !ts.isBlock(body)) return;
  const kind = inClass(fn) ? "extract_method" : "extract_function";
  const st = body.statements.filter((s) => !ts.isEmptyStatement(s));
  st.forEach((s, i) => {
    emit(kind, file, sf, text, s.getStart(sf), s.end);
    if (i + 1 < st.length) emit(kind, file, sf, text, s.getStart(sf), st[i + 1].end);
  });
}

function keywordStart(n, sf) {
  const kw = n.getChildren(sf).find((c) => c.kind === K.FunctionKeyword);
  return kw ? kw.getStart(sf) : n.getStart(sf);
}

for (const file of files) {
  const text = fs.readFileSync(path.join(root, file), "utf8");
  const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : file.endsWith(".ts") ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  namedImports(sf, text, file);
  const visit = (n) => {
    const start = n.getStart(sf);
    if (ts.isExpression(n) && extractable(n)) {
      emit("extract_variable", file, sf, text, start, n.end);
      // A call or `new` is never a module constant: its constant is extract_variable's
      // (declared where it runs), judged there.
      if (!ts.isCallExpression(n) && !ts.isNewExpression(n)) {
        emit("extract_constant", file, sf, text, start, n.end);
      }
    }
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer &&
        ts.isVariableDeclarationList(n.parent) && !(n.parent.flags & ts.NodeFlags.Using) &&
        ts.isVariableStatement(n.parent.parent)) {
      emit("inline_variable", file, sf, text, n.name.getStart(sf), n.name.end);
    }
    if ((ts.isFunctionDeclaration(n) || ts.isFunctionExpression(n)) && n.body) {
      const at = keywordStart(n, sf);
      emit("convert_to_arrow", file, sf, text, at, at);
    }
    if (annotation(n)) emit("extract_type", file, sf, text, start, n.end);
    if (ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isArrowFunction(n) ||
        ts.isFunctionExpression(n)) {
      statementRuns(n, sf, text, file);
    }
    if (ts.isFunctionLike(n) && n.body && returnsChain(n)) {
      const at = ts.isMethodDeclaration(n) ? n.name.getStart(sf) : ts.isArrowFunction(n) ? start : keywordStart(n, sf);
      emit("convert_to_async", file, sf, text, at, at);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
}
