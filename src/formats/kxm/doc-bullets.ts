/**
 * The labelled bullets of a KXM Markdown view, one by one, into a neutral state: which label
 * means which manifest field (`Workflow run ID`, `Source`, `Critic verdicts`…), in the seed
 * template's wording and the older example template's.
 */
import type { Problem } from '../../model/errors.js';
import { codeSpans, oneLine } from '../kit/markdown.js';
import type { Json } from '../kit/values.js';
import type { DocBullet } from './doc-read.js';
import { isArtifactRef } from './rules.js';
import { shownValues } from './shown-value.js';
import { KXM_DOC_LEGACY_INTENTS, KXM_INTENTS, KXM_VERDICTS } from './schema.js';

export const short = (s: string): string => s.slice(0, 4096);
const norm = (label: string): string => label.toLowerCase().replace(/[^a-z]/g, '');
/** The value a bullet names: its first code span once struck-out text is dropped, else its text. */
export const first = (text: string): string => shownValues(text)[0] ?? '';
export const isPlaceholder = (s: string): boolean => /<[a-z][a-z0-9_ -]*>/i.test(s);
export const INTENTS: readonly string[] = [...KXM_INTENTS, ...KXM_DOC_LEGACY_INTENTS];

/** `role \`x\`, agent \`y\`` and `(Harness: \`x\`, Model: \`y\`)` → { role: x, agent: y, … }. */
function keyedSpans(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  let last = 0;
  for (const m of text.matchAll(/(`+)(.+?)\1(?!`)/g)) {
    const between = text.slice(last, m.index);
    last = m.index + m[0].length;
    const words = between.match(/[A-Za-z][A-Za-z-]*/g);
    const key = norm(words?.[words.length - 1] ?? '');
    let value = m[2] ?? '';
    if (value.length >= 2 && value.startsWith(' ') && value.endsWith(' '))
      value = value.slice(1, -1);
    if (key !== '' && !Object.hasOwn(out, key)) out[key] = value;
  }
  return out;
}

function moreThanOne(path: string, what: string, values: readonly string[]): Problem {
  return {
    path,
    message: `the ${what} names more than one value; write the one the witness gave (a value struck out with ~~ is withdrawn)`,
    expected: 'one value',
    got: values.map((v) => `\`${v}\``).join(', '),
  };
}

function items(b: DocBullet): string[] {
  return [...(b.value === '' ? [] : [b.value]), ...b.children]
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export interface DocState {
  manifest: Record<string, unknown>;
  source: Record<string, string>;
  target: Record<string, string>;
  run?: string;
  task?: string;
  branch?: string;
  decisions: string[];
  assumptions: string[];
  openQuestions: string[];
  verdicts: { critic: string; verdict: string; summary?: string }[];
  refs: { kind: 'patches' | 'reports' | 'artifacts'; name?: string; ref: string }[];
  witness: { command?: string; exitCode?: number; passed?: boolean; receiptHash?: string };
  unmapped: Json[];
  problems: Problem[];
  placeholders: string[];
}

export function readBullet(st: DocState, section: string, b: DocBullet): void {
  const label = b.label === null ? null : norm(b.label);
  const path = `body.${section === '' ? 'section' : section}.${b.label ?? 'bullet'}`;
  const raw = [b.value, ...b.children].join(' ');
  if (isPlaceholder(raw)) st.placeholders.push(`${section} / ${b.label ?? '(bullet)'}`);
  if (label === null) {
    const refs = codeSpans(raw).filter(isArtifactRef);
    if (refs.length > 0) for (const ref of refs) st.refs.push({ kind: 'artifacts', ref });
    else st.unmapped.push({ section, label: null, value: b.value, children: b.children });
    return;
  }
  const value = first(b.value);
  switch (label) {
    case 'workflowrunid':
      st.run = short(value);
      return;
    case 'taskid':
      st.task = short(value);
      return;
    case 'source':
    case 'sourcerole':
      if (label === 'sourcerole') st.source['role'] = value;
      for (const [k, v] of Object.entries(keyedSpans(raw))) {
        const key =
          k === 'agent' ? 'agentId' : k === 'step' ? 'stepId' : k === 'attempt' ? 'attemptId' : k;
        if (!(key === 'role' && label === 'sourcerole')) st.source[key] = v;
      }
      return;
    case 'target':
    case 'targetrole':
      if (label === 'targetrole') st.target['role'] = value;
      for (const [k, v] of Object.entries(keyedSpans(raw)))
        if (!(k === 'role' && label === 'targetrole')) st.target[k] = v;
      return;
    case 'intent':
      st.manifest['intent'] = value;
      return;
    case 'reworkof':
      st.manifest['reworkOf'] = /^(none|null|-)?$/i.test(value) ? null : value;
      return;
    case 'basecommit':
      st.manifest['baseCommit'] = value;
      return;
    case 'candidatetreehash':
      st.manifest['candidateTreeHash'] = value;
      return;
    case 'candidatecommit':
      st.manifest['candidateCommit'] = value;
      return;
    case 'branch':
    case 'deterministicbranch':
      st.branch = short(value);
      return;
    case 'patches':
    case 'reports':
      for (const s of items(b).flatMap((i) => (codeSpans(i).length > 0 ? codeSpans(i) : [i])))
        if (!/^none$/i.test(s)) st.refs.push({ kind: label, ref: s });
      return;
    case 'artifacts':
      for (const item of items(b)) {
        const sp = codeSpans(item);
        if (sp.length >= 2)
          st.refs.push({ kind: 'artifacts', name: sp[0] ?? '', ref: sp[1] ?? '' });
        else if (sp.length === 1) st.refs.push({ kind: 'artifacts', name: '', ref: sp[0] ?? '' });
      }
      return;
    case 'command':
    case 'witnesscommand':
      st.witness.command = value;
      return;
    case 'exitcode':
    case 'witnessexitcode': {
      // Two values (in one bullet, or in two) leave which one the witness returned unsaid.
      const code = /^-?\d{1,15}$/.test(value) ? Number(value) || 0 : undefined;
      const seen = st.witness.exitCode;
      const named = shownValues(b.value);
      if (named.length > 1 || (code !== undefined && seen !== undefined && seen !== code))
        st.problems.push(
          moreThanOne(path, 'witness exit code', named.length > 1 ? named : [String(seen), value]),
        );
      else if (code !== undefined) st.witness.exitCode = code;
      else if (!isPlaceholder(value))
        st.problems.push({
          path,
          message: 'witness exit code is not an integer',
          expected: 'integer',
          got: value,
        });
      return;
    }
    case 'witnesspassed': {
      const passed = value === 'true' || value === 'false' ? value === 'true' : undefined;
      const seen = st.witness.passed;
      const named = shownValues(b.value);
      if (named.length > 1 || (passed !== undefined && seen !== undefined && seen !== passed))
        st.problems.push(
          moreThanOne(path, 'witness passed', named.length > 1 ? named : [String(seen), value]),
        );
      else if (passed !== undefined) st.witness.passed = passed;
      else if (!isPlaceholder(value))
        st.problems.push({
          path,
          message: 'witness passed is not a boolean',
          expected: 'true or false',
          got: value,
        });
      return;
    }
    case 'receipthash':
      st.witness.receiptHash = value;
      return;
    case 'criticverdicts':
      for (const item of items(b)) {
        const m = /^(`+)(.+?)\1:\s*(`+)([A-Za-z]+)\3\.?\s*(?:,\s*)?(.*)$/.exec(item);
        if (m === null) {
          if (!/^none$/i.test(item))
            st.unmapped.push({ section, label: b.label, value: item, children: [] });
          continue;
        }
        const verdict = m[4] ?? '';
        if (!(KXM_VERDICTS as readonly string[]).includes(verdict)) {
          if (!isPlaceholder(item))
            st.problems.push({
              path,
              message: 'critic verdict is not one of the allowed values',
              expected: `one of ${KXM_VERDICTS.join(', ')}`,
              got: verdict,
            });
          continue;
        }
        const summary = (m[5] ?? '').trim();
        st.verdicts.push({ critic: m[2] ?? '', verdict, ...(summary === '' ? {} : { summary }) });
      }
      return;
    case 'settleddecisions':
      st.decisions.push(...items(b).filter((i) => !/^none$/i.test(i)));
      return;
    case 'assumptions':
      st.assumptions.push(...items(b).filter((i) => !/^none$/i.test(i)));
      return;
    case 'openquestions':
    case 'openquestionsnotesfortargetrole':
      st.openQuestions.push(...items(b).filter((i) => !/^none$/i.test(i)));
      return;
    case 'suggestednextstep': {
      const keyed = keyedSpans(raw);
      const step: Record<string, string> = {};
      if (keyed['step'] !== undefined) step['stepId'] = keyed['step'];
      if (keyed['action'] !== undefined) step['action'] = keyed['action'];
      st.manifest['suggestedNextStep'] =
        Object.keys(step).length > 0 ? step : { action: oneLine(raw) };
      return;
    }
    default:
      st.unmapped.push({ section, label: b.label, value: b.value, children: b.children });
  }
}
