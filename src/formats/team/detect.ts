/**
 * How sure an input is team-orchestration's, weighing every signal: a `## <role> Result`
 * heading, the result's status words (SUCCESS, FAILED — PARTIAL is shared with MaxsimCLI), its
 * four sections, against MaxsimCLI's own words and sections; for JSON, each toolkit file's own
 * shape. A Markdown result is confident only on the contract's own evidence (two of Findings,
 * Key References, Confidence, or a toolkit agent's role): Status, Summary and a "… Result"
 * title are every report's.
 */
import type { Detection, Sniff } from '../contract.js';
import { isPlainObject } from '../kit/json.js';
import { statusWord } from '../kit/sniff.js';
import { fileKind } from './files.js';
import { INSIGHT_CATEGORIES, isToolkitRole, keyOf, roleOf } from './vocabulary.js';

const MAXSIM_SECTIONS = ['key decisions', 'artifacts', 'deferred items'];
const MAXSIM_WORDS = ['pass', 'fail', 'complete', 'blocked'];
/** A failed result's own sections (the contract's error format), in English and Japanese. */
const ERROR_SECTIONS =
  /^(error details|attempted actions|root cause analysis|recovery options|エラー詳細|試行したアクション|根本原因分析|回復オプション)$/i;
/**
 * The most a result without the contract's own evidence scores: below the registry's 0.5, so
 * it is refused as too weak to record without --format, never recorded on a guess.
 */
const GUESS = 0.45;

function detectJson(value: unknown, fileName?: string): Detection {
  if (!isPlainObject(value)) return { score: 0, signals: [] };
  const kind = fileKind(value, fileName);
  const workspace = typeof value['workspaceId'] === 'string';
  if (kind === 'insight') {
    const own = typeof value['id'] === 'string' && value['id'].startsWith('INS-');
    const category =
      typeof value['category'] === 'string' &&
      (INSIGHT_CATEGORIES as readonly string[]).includes(value['category']);
    return own
      ? { score: 0.95, signals: ['an INS- id with category and content: an insight file'] }
      : category
        ? { score: 0.6, signals: ['category and content of an insight'] }
        : { score: 0.3, signals: ['id, category and content'] };
  }
  if (kind !== undefined && workspace) {
    const file =
      kind === 'insights'
        ? 'pending.json'
        : kind === 'progress'
          ? 'claude-progress.json'
          : kind === 'features'
            ? 'feature-list.json'
            : 'insight';
    const named = fileName !== undefined && fileName.toLowerCase().endsWith(file);
    return {
      score: named ? 0.95 : 0.9,
      signals: [`workspaceId and the shape of ${file}${named ? ', and its name' : ''}`],
    };
  }
  // Without a workspaceId, "status" or "features" alone say little: any JSON may have them.
  if (kind === 'features' || kind === 'insights') {
    const signals = [`the shape of a toolkit ${kind} file, without workspaceId`];
    // The toolkit's claude-progress.json has no features array: a file by that name that has
    // one is another harness's progress file (issue 20), not Spec-Workflow-Toolkit's.
    if (kind === 'features' && /claude-progress\.json$/i.test(fileName ?? '')) {
      signals.push(
        "but named claude-progress.json, which in the toolkit holds progress, not a features array: another harness's progress file",
      );
      return { score: 0.25, signals };
    }
    return { score: 0.3, signals };
  }
  if (workspace) return { score: 0.3, signals: ['a workspaceId, but no toolkit file shape'] };
  return { score: 0, signals: [] };
}

export function detectTeam(input: Sniff): Detection {
  const json = input.json();
  if (json !== undefined) return detectJson(json, input.fileName);
  const md = input.markdown();
  if (md === null) return { score: 0, signals: [] };
  const signals: string[] = [];
  const role = md.sections.find((s) => s.level <= 2 && roleOf(s.title) !== null);
  const toolkitRole = role !== undefined && isToolkitRole(roleOf(role.title) ?? '');
  if (role) signals.push(`a "${role.title}" heading${toolkitRole ? ", a toolkit agent's" : ''}`);
  const keys = new Set(md.sections.map((s) => keyOf(s.title)?.key).filter((k) => k !== undefined));
  const sections = ['summary', 'findings', 'references', 'confidence'].filter((k) =>
    keys.has(k as never),
  );
  // Status and Summary are every result document's; a "… Result" title is any report's. The
  // contract's own evidence is its other sections (or a failed result's error sections) or a
  // toolkit agent's role: without it, a generic result is at most a guess (red team round 12, 1).
  const contractOwn =
    sections.filter((k) => k !== 'summary').length +
    md.sections.filter((s) => ERROR_SECTIONS.test(s.title.trim())).length;
  const evidence = toolkitRole || contractOwn >= 2;
  const written = statusWord(md, ['status', 'ステータス']);
  const word = written?.toUpperCase();
  // The contract writes its status in capitals; a lower-case "success" is every tool's word,
  // the contract's only beside the contract's own evidence.
  const own = (word === 'SUCCESS' || word === 'FAILED') && (written === word || evidence);
  if (own) signals.push(`status ${word} is the result contract's vocabulary`);
  if (sections.length > 0) signals.push(`result sections: ${sections.join(', ')}`);
  let score = 0;
  if (role && own) score = 0.95;
  else if (role && keys.has('status')) score = 0.6;
  else if (own && sections.length >= 2) score = 0.7;
  else if (own) score = 0.45;
  else if (keys.has('status') && sections.length >= 3) score = 0.5;
  else if (role) score = 0.2;
  score = Math.min(0.98, score + 0.08 * sections.length);
  if (!evidence && score > GUESS) {
    score = GUESS;
    signals.push(
      `but ${contractOwn === 0 ? 'none' : 'only one'} of the contract's own sections (Findings, Key References, Confidence) and no toolkit agent's role`,
    );
  }
  const maxsim = md.sections.filter((s) =>
    MAXSIM_SECTIONS.includes(
      s.title
        .replace(/[*_`:]/g, '')
        .trim()
        .toLowerCase(),
    ),
  ).length;
  if (word !== undefined && MAXSIM_WORDS.includes(word.toLowerCase())) {
    score *= 0.2;
    signals.push(`but status ${word} is MaxsimCLI's vocabulary`);
  }
  if (maxsim >= 2) {
    score *= 0.4;
    signals.push(`but ${maxsim} MaxsimCLI contract sections`);
  }
  return { score, signals };
}
