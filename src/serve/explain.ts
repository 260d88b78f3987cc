// What the page shows about one test, computed from its text alone (in the
// checking worker): the verdict, herd7's block, the states, each witness as
// an SVG picture beside its trace, or the forbidden candidate of a Never
// with its cycle. Plain data, so that it can cross threads and go out as JSON.

import { checkSource } from '../check.js';
import { getModel, unknownModelMessage } from '../../models/index.js';
import { primitivesFor } from '../cli/run-one.js';
import { LimitError, LitmusError } from '../parse/errors.js';
import { forbiddenPicture, witnessPictures } from '../report/graph.js';
import { herdBlock, humanLine } from '../report/herd.js';
import { suiteMeta, type SuiteMeta } from '../report/suite.js';
import { svgPicture } from '../report/svg.js';
import { traceReport } from '../report/trace.js';
import { ModelError } from '../../models/cat/lexer.js';

export interface Limits {
  model: string;
  maxExecutions: number;
  timeoutMs: number;
  unroll?: number;
}

export interface Explained {
  picture?: string;
  trace: string;
}

export interface TestView {
  /** Bad input or a limit reached: one line, as the CLI says it. */
  error?: string;
  name?: string;
  summary?: string;
  observation?: string;
  expected?: string;
  matches?: boolean;
  herd?: string;
  condition?: string;
  states?: { bindings: [string, string][]; count: number; positive: boolean }[];
  witnesses?: Explained[];
  forbidden?: Explained;
  meta?: SuiteMeta;
}

/** Checks a test's text; `full` adds the pictures and traces (a grid needs only verdicts). */
export function explainSource(text: string, limits: Limits, full: boolean, file = 'test'): TestView {
  const model = getModel(limits.model);
  if (!model) return { error: unknownModelMessage(limits.model) };
  // The .def a --conf names (its macros line), read once per thread.
  const macros = primitivesFor({ model: limits.model }, model);
  if (macros.error) return { error: macros.error.format() };
  try {
    const r = checkSource(text, { model, maxExecutions: limits.maxExecutions, timeoutMs: limits.timeoutMs, unroll: limits.unroll, keepWitnesses: full, primitives: macros.primitives });
    const view: TestView = {
      name: r.name,
      summary: humanLine(r),
      observation: r.observation,
      expected: r.expected,
      matches: r.matches,
      condition: r.condition,
      meta: suiteMeta(text),
    };
    if (!full) return view;
    view.herd = herdBlock(r);
    view.states = r.states;
    const explainLimits = { maxExecutions: limits.maxExecutions, timeoutMs: limits.timeoutMs };
    const trace = traceReport(r, model, { limits: explainLimits });
    const witnesses = witnessPictures(r, model);
    if (witnesses.length > 0) {
      const blocks = witnessBlocks(trace);
      view.witnesses = witnesses.map((p, i) => ({
        picture: svgPicture(p),
        // One trace per witness when the text splits that way; else all of it, once.
        trace: blocks.length === witnesses.length ? blocks[i] : i === 0 ? trace : '',
      }));
    } else {
      const p = forbiddenPicture(r, model, explainLimits);
      view.forbidden = { picture: p && svgPicture(p), trace };
    }
    return view;
  } catch (e) {
    if (e instanceof LitmusError) return { error: e.format(file) };
    if (e instanceof LimitError) return { error: `${file}: ${e.message}` };
    if (e instanceof ModelError) return { error: e.message };
    return { error: `${file}: internal error: ${e instanceof Error ? e.message : String(e)} (please report it)` };
  }
}

/** The trace's paragraphs that start with "Witness for", in order. */
function witnessBlocks(trace: string): string[] {
  return trace
    .split(/\n(?=Witness for )/)
    .filter((b) => b.startsWith('Witness for '))
    .map((b) => b.trimEnd());
}
