/**
 * How sure an input is a MaxsimCLI handoff, weighing every signal and saying which: the four
 * contract sections, a status word only MaxsimCLI uses (PASS, FAIL, complete, blocked — PARTIAL
 * is shared with team results), against the other systems' own words and sections. A document
 * headed `## Executor Result` whose status is PASS is MaxsimCLI's, not a team result. A phase
 * SUMMARY.md file name lifts a weak score, never over what the body says against MaxsimCLI.
 */
import type { Detection, Sniff } from '../contract.js';
import { normalizeTitle } from '../kit/markdown.js';
import { statusWord } from '../kit/sniff.js';
import { phaseSummaryOf } from './summary.js';
import { OWN_STATUS_WORDS, sectionOf } from './vocabulary.js';

const TEAM_SECTIONS = ['summary', 'findings', 'key references', 'confidence'];
const TEAM_WORDS = ['success', 'failed'];
/**
 * A GSD/MaxsimCLI phase summary's file name: `SUMMARY.md`, `01-02-SUMMARY.md`,
 * `32.1-01-SUMMARY.md`, `16-01-pack-install-SUMMARY.md`, GSD-2's `S01-SUMMARY.md`, a quick
 * task's `7-SUMMARY.md`. Not any `*summary.md`: orbit's `execution-summary.md`, a
 * `session-summary.md` are other tools' (red team round 12, finding 4).
 */
const PHASE_SUMMARY_NAME = /^(?:(?:\d+(?:\.\d+)?|[MST]\d+)(?:-[A-Za-z0-9.]+)*-)?SUMMARY\.md$/;

export function detectMaxsim(input: Sniff): Detection {
  const md = input.markdown();
  if (md === null) return { score: 0, signals: [] };
  const names = new Set<string>();
  for (const s of md.sections) {
    const known = sectionOf(s.title);
    if (known) names.add(known.name);
  }
  const summary = phaseSummaryOf(md.frontMatter, md.body) !== undefined;
  if (names.size === 0 && !summary) return { score: 0, signals: [] };
  const signals = names.size > 0 ? [`contract sections: ${[...names].join(', ')}`] : [];
  let score = [0, 0.3, 0.55, 0.8, 0.95][names.size] ?? 0.95;
  if (summary) {
    score = Math.max(score, 0.7);
    signals.push('a MaxsimCLI phase SUMMARY (phase and plan in its front matter or opening lines)');
  }
  const word = statusWord(md, ['status'])?.toLowerCase();
  // Whether the body speaks against MaxsimCLI: a file name never outweighs that.
  let against = false;
  if (word !== undefined && OWN_STATUS_WORDS.has(word)) {
    score = Math.min(0.98, score + 0.15);
    signals.push(`status ${word.toUpperCase()} is MaxsimCLI's vocabulary`);
  } else if (word !== undefined && TEAM_WORDS.includes(word)) {
    score *= 0.3;
    against = true;
    signals.push(`but status ${word.toUpperCase()} is a team result's vocabulary`);
  }
  // Distinct sections: a slice summary joined from task summaries repeats `## Summary` once per
  // task (xbmc/kodiai M018/S03), one team-result word however often it is written.
  const team = new Set(
    md.sections.map((s) => normalizeTitle(s.title)).filter((t) => TEAM_SECTIONS.includes(t)),
  ).size;
  if (team >= 2 && names.size <= 2) {
    score *= 0.5;
    against = true;
    signals.push(`but ${team} team-result sections`);
  }
  if (/^\s*[*_]*status[*_]*\s*:\s*(completed|blocked|failed)\s*$/im.test(md.body)) {
    score *= 0.3;
    against = true;
    signals.push('but a structured-handoff "Status: completed|blocked|failed" line');
  }
  const base = input.fileName?.split(/[\\/]/).pop();
  if (base !== undefined && PHASE_SUMMARY_NAME.test(base)) {
    if (against) signals.push('a phase SUMMARY.md file name, which does not outweigh the body');
    else {
      score = Math.max(score, 0.6);
      signals.push('a phase SUMMARY.md file name');
    }
  }
  return { score, signals };
}
