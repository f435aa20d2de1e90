/**
 * How sure an input is team-orchestration's, weighing every signal: a `## <role> Result`
 * heading, the result's status words (SUCCESS, FAILED — PARTIAL is shared with MaxsimCLI), its
 * four sections, against MaxsimCLI's own words and sections; for JSON, each toolkit file's own
 * shape.
 */
import type { Detection, Sniff } from '../contract.js';
import { isPlainObject } from '../kit/json.js';
import { statusWord } from '../kit/sniff.js';
import { fileKind } from './files.js';
import { INSIGHT_CATEGORIES, keyOf, roleOf } from './vocabulary.js';

const MAXSIM_SECTIONS = ['key decisions', 'artifacts', 'deferred items'];
const MAXSIM_WORDS = ['pass', 'fail', 'complete', 'blocked'];

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
  if (role) signals.push(`a "${role.title}" heading`);
  const keys = new Set(md.sections.map((s) => keyOf(s.title)?.key).filter((k) => k !== undefined));
  const word = statusWord(md, ['status', 'ステータス'])?.toUpperCase();
  const own = word === 'SUCCESS' || word === 'FAILED';
  if (own) signals.push(`status ${word} is the result contract's vocabulary`);
  const sections = ['summary', 'findings', 'references', 'confidence'].filter((k) =>
    keys.has(k as never),
  );
  if (sections.length > 0) signals.push(`result sections: ${sections.join(', ')}`);
  let score = 0;
  if (role && own) score = 0.95;
  else if (role && keys.has('status')) score = 0.6;
  else if (own && sections.length >= 2) score = 0.7;
  else if (own) score = 0.45;
  else if (keys.has('status') && sections.length >= 3) score = 0.5;
  else if (role) score = 0.2;
  score = Math.min(0.98, score + 0.08 * sections.length);
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
