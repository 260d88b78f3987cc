// herd7's test hash (the `Hash=` line after the Observation line), computed
// the way herdtools7 computes it for C tests: the MD5 of four MD5s, of
//   1. the digested header keys (MemoryType, MT, CacheType; usually none),
//   2. the initial state as written, entries sorted by location,
//   3. the processes: each one's parameters and raw body text,
//   4. the locations the final condition and `locations [...]` observe.
// herd reads the file as bytes and splits it into sections before parsing
// them; this module follows the same splitting, on the raw text, so that the
// hash depends on exactly what herd's depends on (whitespace and comments
// inside a process body included). A test whose header already carries a
// `Hash=` line keeps it, as in herd.

import { md5Binary, md5HexOf } from './md5.js';

/** The `Hash=...` lines herd prints for a test (usually exactly one). */
export function herdHashLines(source: string | Buffer): string[] {
  const text = typeof source === 'string' ? Buffer.from(source, 'utf8').toString('latin1') : source.toString('latin1');
  const sections = splitTest(text);
  let info = sections.info;
  if (!info.some(([k]) => sameKey(k, 'Hash'))) {
    const hash = md5Hex(
      digestInfo(info) +
        md5Raw(initText(sections.init)) +
        md5Raw(codeText(sections.prog)) +
        md5Raw(observedText(sections.constr)),
    );
    info = [['Hash', hash], ...info];
  }
  return info.filter(([k]) => k === 'Hash').map(([k, v]) => `${k}=${v}`);
}

/** The hash alone (the value of the first `Hash=` line). */
export function herdHash(source: string | Buffer): string {
  const line = herdHashLines(source)[0] ?? '';
  return line.slice(line.indexOf('=') + 1);
}

// Strings here are "binary": one character per byte of the file (latin1),
// so lengths and comparisons are byte-wise, as OCaml's.
function md5Raw(s: string): string {
  return md5Binary(s);
}

function md5Hex(s: string): string {
  return md5HexOf(s);
}

function sameKey(a: string, b: string): boolean {
  return a.length === b.length && a.toUpperCase() === b.toUpperCase();
}

function byteCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------
// Splitting: header line, key=value lines, { init }, processes, condition.

interface Sections {
  info: [string, string][];
  init: string;
  prog: string;
  constr: string;
}

export class HashError extends Error {}

const HEADER = /[ \t\r]*[A-Za-z0-9_]+[ \t\r]+[A-Za-z0-9_/.\-+[\]:]+[ \t\r]*(?:\([A-Za-z][A-Za-z0-9_/.-]*\)[ \t\r]*)?(?:\n?[ \t\r]*"[^"]*"[ \t\r]*)?;?/y;
const INFO = /([A-Za-z][A-Za-z0-9_/.-]*)[ \t\r]*=[ \t\r]*([^\n\r]*)\r?\n/y;

function splitTest(text: string): Sections {
  HEADER.lastIndex = 0;
  if (!HEADER.exec(text)) throw new HashError('no test header');
  let p = HEADER.lastIndex;
  const info: [string, string][] = [];
  // Before the initial state: key=value lines; "(*" opens a comment only
  // where no longer token starts (herd's lexer takes the longest match).
  for (;;) {
    if (p >= text.length) throw new HashError('no initial state');
    const c = text[p];
    if (c === '\n') {
      p++;
      continue;
    }
    if (c === '{') break;
    INFO.lastIndex = p;
    const m = INFO.exec(text);
    let other = p;
    while (other < text.length && text[other] !== '\n' && text[other] !== '{') other++;
    const otherLen = other - p;
    const infoLen = m ? m[0].length : 0;
    if (text.startsWith('(*', p) && otherLen <= 2 && infoLen <= 2) {
      p = skipComment(text, p + 2);
    } else if (infoLen > otherLen) {
      info.push([m![1], m![2]]);
      p += infoLen;
    } else p = other;
  }
  const initStart = p + 1;
  let depth = 0;
  p = initStart;
  for (; p < text.length; p++) {
    if (text[p] === '{') depth++;
    else if (text[p] === '}') {
      if (depth === 0) break;
      depth--;
    }
  }
  if (p >= text.length) throw new HashError('unclosed initial state');
  const init = text.slice(initStart, p);
  const progStart = p + 1;
  const progEnd = findConstraint(text, progStart);
  const rest = text.slice(progEnd);
  const stop = rest.indexOf('<<');
  return { info, init, prog: text.slice(progStart, progEnd), constr: stop < 0 ? rest : rest.slice(0, stop) };
}

function skipComment(text: string, p: number): number {
  let depth = 1;
  while (p < text.length) {
    if (text.startsWith('(*', p)) {
      depth++;
      p += 2;
    } else if (text.startsWith('*)', p)) {
      p += 2;
      if (--depth === 0) return p;
    } else p++;
  }
  throw new HashError('unclosed comment');
}

const NAME = /[A-Za-z][A-Za-z0-9_/.-]*/y;
const CONSTRAINT_START = /(?:final|forall|~[ \t\r]*exists|exists|cases|observed|Observed|locations|filter)/y;

/** Where the final condition starts: the first keyword outside a name or a string. */
function findConstraint(text: string, p: number): number {
  while (p < text.length) {
    if (text[p] === '"') {
      const end = text.indexOf('"', p + 1);
      p = end < 0 ? text.length : end + 1;
      continue;
    }
    CONSTRAINT_START.lastIndex = p;
    const k = CONSTRAINT_START.exec(text);
    NAME.lastIndex = p;
    const n = NAME.exec(text);
    const klen = k ? k[0].length : 0;
    const nlen = n ? n[0].length : 0;
    if (klen > 0 && klen >= nlen) return p;
    p += Math.max(1, nlen);
  }
  return text.length;
}

// ---------------------------------------------------------------------------
// 1. Header keys that enter the digest.

const DIGESTED_KEYS = ['MemoryType', 'MT', 'CacheType'];

function digestInfo(info: [string, string][]): string {
  const sorted = info.map((kv, i) => ({ kv, i })).sort((a, b) => byteCompare(a.kv[0], b.kv[0]) || a.i - b.i);
  const parts: string[] = [];
  for (const { kv } of sorted) {
    if (DIGESTED_KEYS.some((d) => sameKey(d, kv[0]))) parts.unshift(`${kv[0].toLowerCase()}=${kv[1]}`);
  }
  return parts.length === 0 ? '' : md5Raw(parts.join(''));
}

// ---------------------------------------------------------------------------
// Tokens of the initial state and of the condition (herd's state lexer).

interface Tok {
  kind: 'num' | 'name' | 'proc' | 'punct' | 'keyword';
  text: string;
}

const STATE_TOKEN =
  /(?<ws>[ \t\r\n]+)|(?<num>0[xX][0-9a-fA-F]+|-?[0-9]+)|(?<op>\/\\|\\\/|=>|==|!=|<>|<<)|(?<punct>[;:,&+[\](){}=*~])|(?<name>[A-Za-z_.$]+[A-Za-z0-9_/.-]*)|(?<other>.)/y;
const KEYWORDS = new Set(['exists', 'forall', 'final', 'not', 'true', 'false', 'locations', 'filter', 'with', 'observed', 'Observed', 'and', 'ATOMIC_INIT', '_Atomic']);

function stateTokens(text: string): Tok[] {
  const out: Tok[] = [];
  let p = 0;
  while (p < text.length) {
    if (text.startsWith('(*', p)) {
      p = skipComment(text, p + 2);
      continue;
    }
    STATE_TOKEN.lastIndex = p;
    const m = STATE_TOKEN.exec(text)!;
    p = STATE_TOKEN.lastIndex;
    const g = m.groups!;
    if (g.ws !== undefined) continue;
    if (g.num !== undefined) out.push({ kind: 'num', text: g.num });
    else if (g.op !== undefined || g.punct !== undefined) out.push({ kind: 'punct', text: m[0] });
    else if (g.name !== undefined) {
      const t = g.name;
      if (/^P[0-9]+$/.test(t)) out.push({ kind: 'proc', text: t.slice(1) });
      else out.push({ kind: KEYWORDS.has(t) ? 'keyword' : 'name', text: t });
    } else out.push({ kind: 'punct', text: m[0] });
  }
  return out;
}

type Loc = { kind: 'reg'; proc: number; name: string } | { kind: 'global'; name: string };
type RLoc = { loc: Loc; index?: number };

function dumpLoc(l: Loc): string {
  return l.kind === 'reg' ? `${l.proc}:${l.name}` : l.name;
}

function compareLoc(a: Loc, b: Loc): number {
  if (a.kind === 'reg' && b.kind === 'reg') return a.proc - b.proc || byteCompare(a.name, b.name);
  if (a.kind !== b.kind) return a.kind === 'reg' ? -1 : 1;
  return byteCompare(a.name, b.name);
}

function compareRLoc(a: RLoc, b: RLoc): number {
  if ((a.index === undefined) !== (b.index === undefined)) return a.index === undefined ? -1 : 1;
  return compareLoc(a.loc, b.loc) || (a.index ?? 0) - (b.index ?? 0);
}

/** A location at `toks[i]`: `0:r1`, `P0:r1`, `x`; returns it and the next index. */
function readLoc(toks: Tok[], i: number): [Loc, number] | undefined {
  const t = toks[i];
  if (!t) return undefined;
  if ((t.kind === 'num' || t.kind === 'proc') && toks[i + 1]?.text === ':' && toks[i + 2]?.kind === 'name') {
    return [{ kind: 'reg', proc: Number.parseInt(t.text, 10), name: toks[i + 2].text }, i + 3];
  }
  if (t.kind === 'name') return [{ kind: 'global', name: t.text }, i + 1];
  return undefined;
}

// ---------------------------------------------------------------------------
// 2. The initial state.

type InitType = { kind: 'def' } | { kind: 'defptr' } | { kind: 'ty'; t: string } | { kind: 'atomic'; t: string } | { kind: 'ptr'; t: string } | { kind: 'array'; t: string; n: string };

function initText(init: string): string {
  const toks = stateTokens(init);
  const entries: { loc: Loc; ty: InitType; v: string }[] = [];
  let i = 0;
  while (i < toks.length) {
    if (toks[i].text === ';') {
      i++;
      continue;
    }
    let end = i;
    while (end < toks.length && toks[end].text !== ';') end++;
    entries.push(initEntry(toks.slice(i, end)));
    i = end;
  }
  const sorted = entries.map((e, k) => ({ e, k })).sort((a, b) => compareLoc(a.e.loc, b.e.loc) || a.k - b.k);
  const unique = sorted.filter((x, k) => k === 0 || compareLoc(sorted[k - 1].e.loc, x.e.loc) !== 0).map((x) => x.e);
  return unique
    .map(({ loc, ty, v }) => {
      const l = dumpLoc(loc);
      switch (ty.kind) {
        case 'def':
          return `${l}=${v}`;
        case 'defptr':
          return `*${l}=${v}`;
        case 'ty':
          return `${ty.t} ${l}=${v}`;
        case 'atomic':
          return `_Atomic ${ty.t} ${l}=${v}`;
        case 'ptr':
          return `${ty.t} *${l}=${v}`;
        case 'array':
          // herd's digest leaves an array's values out.
          return `${ty.t} ${l}[${ty.n}]`;
      }
    })
    .join('; ');
}

/** One `;`-separated entry of the initial state, in herd's forms. */
function initEntry(toks: Tok[]): { loc: Loc; ty: InitType; v: string } {
  const bad = () => new HashError(`unsupported initial-state entry "${toks.map((t) => t.text).join(' ')}"`);
  let i = 0;
  let ty: InitType | undefined;
  if (toks[0]?.text === '_Atomic' && toks[1]?.kind === 'name') {
    ty = { kind: 'atomic', t: toks[1].text };
    i = 2;
  } else if (toks[0]?.text === '*') {
    ty = { kind: 'defptr' };
    i = 1;
  } else if (toks[0]?.kind === 'name' && toks[1]?.text === '*') {
    ty = { kind: 'ptr', t: toks[0].text };
    i = 2;
  } else if (toks[0]?.kind === 'name' && (toks[1]?.kind === 'name' || toks[1]?.kind === 'num' || toks[1]?.kind === 'proc')) {
    ty = { kind: 'ty', t: toks[0].text };
    i = 1;
  }
  const at = readLoc(toks, i);
  if (!at) throw bad();
  const [loc, j] = at;
  // `int a[2]`, `int a[2] = {1, 2}`: an array.
  if (ty?.kind === 'ty' && toks[j]?.text === '[' && toks[j + 1]?.kind === 'num' && toks[j + 2]?.text === ']') {
    const rest = toks.slice(j + 3);
    const list = rest.length === 0 || (rest[0].text === '=' && rest[1]?.text === '{' && rest[rest.length - 1].text === '}');
    if (!list) throw bad();
    return { loc, ty: { kind: 'array', t: ty.t, n: toks[j + 1].text }, v: '' };
  }
  if (j === toks.length) return { loc, ty: ty ?? { kind: 'def' }, v: '0' };
  if (toks[j].text !== '=') throw bad();
  let k = j + 1;
  let amper = false;
  if (toks[k]?.text === '&') {
    amper = true;
    k++;
  }
  if (toks[k]?.text === 'ATOMIC_INIT' && toks[k + 1]?.text === '(' && toks[k + 3]?.text === ')') k += 2;
  const v = toks[k];
  if (!v || (v.kind !== 'num' && v.kind !== 'name')) throw bad();
  if (!ty) ty = amper ? { kind: 'defptr' } : { kind: 'def' };
  return { loc, ty, v: v.text };
}

// ---------------------------------------------------------------------------
// 3. The processes, as herd's shallow C parser sees them.

type CType = { kind: 'base'; name: string } | { kind: 'volatile' | 'const' | 'atomic' | 'pointer'; of: CType };

function dumpType(t: CType): string {
  switch (t.kind) {
    case 'base':
      return t.name;
    case 'volatile':
      return t.of.kind === 'base' ? `volatile ${t.of.name}` : `${dumpType(t.of)} volatile`;
    case 'atomic':
      return t.of.kind === 'base' ? `_Atomic ${t.of.name}` : `_Atomic (${dumpType(t.of)})`;
    case 'const':
      return `${dumpType(t.of)} const`;
    case 'pointer':
      return `${dumpType(t.of)}*`;
  }
}

const C_TOKEN = /(?<ws>[ \t\r\n]+)|(?<comment>\/\*[\s\S]*?\*\/|\/\/[^\n]*)|(?<proc>P[0-9]+(?![A-Za-z0-9_]))|(?<name>[A-Za-z_][A-Za-z0-9_]*)|(?<other>.)/y;

function codeText(prog: string): string {
  const items: string[] = [];
  let params: string[] = [];
  let proc: number | undefined;
  let inParams = false;
  let param: string[] = [];
  const endParam = () => {
    if (param.length) params.push(paramText(param));
    param = [];
  };
  let p = 0;
  while (p < prog.length) {
    if (prog[p] === '{' && !inParams) {
      const end = matchingBrace(prog, p + 1);
      const body = prog.slice(p + 1, end);
      items.push(proc === undefined ? `{${body}}\n\n` : `P${proc}(${params.join(', ')}) {\n${body}\n}\n`);
      proc = undefined;
      params = [];
      p = end + 1;
      continue;
    }
    C_TOKEN.lastIndex = p;
    const m = C_TOKEN.exec(prog)!;
    p = C_TOKEN.lastIndex;
    const g = m.groups!;
    if (g.ws !== undefined || g.comment !== undefined) continue;
    if (g.proc !== undefined && !inParams) proc = Number.parseInt(g.proc.slice(1), 10);
    else if (m[0] === '(' && proc !== undefined && !inParams) inParams = true;
    else if (m[0] === ')' && inParams) {
      endParam();
      inParams = false;
    } else if (m[0] === ',' && inParams) endParam();
    else if (inParams) param.push(m[0]);
  }
  return items.length === 0 ? '' : `${items.map((s) => ` ${s} `).join('|')};\n`;
}

function matchingBrace(s: string, p: number): number {
  let depth = 0;
  for (; p < s.length; p++) {
    if (s[p] === '{') depth++;
    else if (s[p] === '}') {
      if (depth === 0) return p;
      depth--;
    }
  }
  throw new HashError('unclosed process body');
}

/** `int *x` → `int* x`: the type without its outer pointer, then `*`, then the name. */
function paramText(toks: string[]): string {
  const name = toks[toks.length - 1];
  const ty = parseType(toks.slice(0, -1));
  if (ty.kind !== 'pointer') throw new HashError(`parameter ${name} is not a pointer`);
  return `${dumpType(ty.of)}* ${name}`;
}

function parseType(toks: string[]): CType {
  let i = 0;
  const prefix = toks[i] === 'volatile' ? 'volatile' : toks[i] === 'const' ? 'const' : toks[i] === '_Atomic' ? 'atomic' : undefined;
  if (prefix) i++;
  let base: string;
  if (toks[i] === 'struct') {
    base = `struct ${toks[i + 1]}`;
    i += 2;
  } else if (toks[i] === 'atomic_int') {
    i++;
    base = 'int';
    if (!prefix) {
      return postfix({ kind: 'atomic', of: { kind: 'base', name: base } }, toks, i);
    }
  } else base = toks[i++];
  let t: CType = { kind: 'base', name: base };
  if (prefix) t = { kind: prefix, of: t };
  return postfix(t, toks, i);
}

function postfix(t: CType, toks: string[], i: number): CType {
  for (; i < toks.length; i++) {
    const k = toks[i];
    if (k === '*') t = { kind: 'pointer', of: t };
    else if (k === 'volatile') t = { kind: 'volatile', of: t };
    else if (k === 'const') t = { kind: 'const', of: t };
  }
  return t;
}

// ---------------------------------------------------------------------------
// 4. The observed locations: `locations [...]` and the final condition.

function observedText(constr: string): string {
  const toks = stateTokens(constr);
  const found: RLoc[] = [];
  let i = 0;
  if (toks[i]?.text === 'locations' && toks[i + 1]?.text === '[') {
    i += 2;
    while (i < toks.length && toks[i].text !== ']') {
      const at = readRLoc(toks, i);
      if (at) {
        found.push(at[0]);
        i = at[1];
      }
      while (i < toks.length && toks[i].text !== ';' && toks[i].text !== ']') i++;
      if (toks[i]?.text === ';') i++;
    }
    i++;
  }
  if (toks[i]?.text === 'filter') {
    while (i < toks.length && !startsFinal(toks, i)) i++;
  }
  for (; i < toks.length; i++) {
    if (toks[i].text === 'with') break;
    const atom = readAtom(toks, i);
    if (!atom) continue;
    found.push(...atom[0]);
    i = atom[1] - 1;
  }
  const sorted = found.sort(compareRLoc).filter((r, k, a) => k === 0 || compareRLoc(a[k - 1], r) !== 0);
  return sorted.map((r) => (r.index === undefined ? dumpLoc(r.loc) : `${dumpLoc(r.loc)}[${r.index}]`)).join('; ');
}

function startsFinal(toks: Tok[], i: number): boolean {
  const t = toks[i].text;
  if (t === 'exists' || t === 'forall' || t === 'final') return true;
  return (t === '~' || t === 'not') && toks[i + 1]?.text === 'exists';
}

function readRLoc(toks: Tok[], i: number): [RLoc, number] | undefined {
  const at = readLoc(toks, i);
  if (!at) return undefined;
  const [loc, j] = at;
  if (loc.kind === 'global' && toks[j]?.text === '[' && toks[j + 1]?.kind === 'num' && toks[j + 2]?.text === ']') {
    return [{ loc, index: Number.parseInt(toks[j + 1].text, 10) }, j + 3];
  }
  return [{ loc }, j];
}

/** An atom `lhs = v`, `lhs != v`, `lhs = loc`: the locations it observes. */
function readAtom(toks: Tok[], i: number): [RLoc[], number] | undefined {
  let lhs: [RLoc, number] | undefined;
  if (toks[i].text === '[') {
    const at = readLoc(toks, i + 1);
    if (!at || toks[at[1]]?.text !== ']') return undefined;
    lhs = [{ loc: at[0] }, at[1] + 1];
  } else lhs = readRLoc(toks, i);
  if (!lhs) return undefined;
  const [l, j] = lhs;
  const op = toks[j]?.text;
  if (op !== '=' && op !== '==' && op !== '!=' && op !== '<>') return undefined;
  let k = j + 1;
  // The right side is a location (LL) when it is a register, `*x` or `[x]`.
  if (toks[k]?.text === '[') {
    const at = readLoc(toks, k + 1);
    if (at && toks[at[1]]?.text === ']') return [[l, { loc: at[0] }], at[1] + 1];
  }
  if (toks[k]?.text === '*') {
    const at = readLoc(toks, k + 1);
    if (at) return [[l, { loc: at[0] }], at[1]];
  }
  const reg = readLoc(toks, k);
  if (reg && reg[0].kind === 'reg' && op !== '!=' && op !== '<>') return [[l, { loc: reg[0] }], reg[1]];
  k++;
  return [[l], k];
}
