/**
 * The team-orchestration / subagent-contract words: result statuses, section titles in English
 * and in the upstream reference's Japanese, insight categories and id patterns, the status
 * words of claude-progress.json and feature-list.json.
 */
import type { Status } from '../../model/record.js';
import { normalizeTitle, unwrap } from '../kit/markdown.js';
import { vocabulary } from '../kit/status.js';

export const TEAM_STATUSES = ['SUCCESS', 'PARTIAL', 'FAILED'] as const;
/** The result contract's words; it has no blocked: a stopped result is PARTIAL with Blockers. */
export const RESULT_VOCABULARY = vocabulary(
  { SUCCESS: 'success', PARTIAL: 'partial', FAILED: 'failed' },
  { fold: 'upper', fallback: { blocked: 'PARTIAL' } },
);

/** Status words of claude-progress.json sessions and feature-list.json features. */
export const PROGRESS_STATUS: Readonly<Record<string, Status>> = {
  completed: 'success',
  complete: 'success',
  done: 'success',
  in_progress: 'partial',
  pending: 'partial',
  active: 'partial',
  started: 'partial',
  paused: 'partial',
  blocked: 'blocked',
  failed: 'failed',
  error: 'failed',
  aborted: 'failed',
};

export const INSIGHT_CATEGORIES = [
  'pattern',
  'learned',
  'insight',
  'decision',
  'antipattern',
] as const;
/** Ids the insight hook writes (`INS-%Y%m%d%H%M%S-<8 hex>`), and the older queue's 17 digits. */
export const INSIGHT_ID = /^INS-\d{14}-[0-9a-f]{8}$/;
export const OLDER_INSIGHT_ID = /^INS-\d{17}$/;

export type Key = 'status' | 'summary' | 'findings' | 'references' | 'confidence' | 'next';
const TITLES: Readonly<Record<string, Key>> = {
  status: 'status',
  ステータス: 'status',
  summary: 'summary',
  サマリー: 'summary',
  findings: 'findings',
  調査結果: 'findings',
  'key references': 'references',
  主要な参照: 'references',
  confidence: 'confidence',
  信頼度: 'confidence',
  'next steps': 'next',
  'next steps (if applicable)': 'next',
  次のステップ: 'next',
  '次のステップ（該当する場合）': 'next',
};
export const REQUIRED: readonly { key: Key; name: string }[] = [
  { key: 'summary', name: 'Summary' },
  { key: 'findings', name: 'Findings' },
  { key: 'references', name: 'Key References' },
  { key: 'confidence', name: 'Confidence' },
];

/** The section key of a heading; `Status: SUCCESS` carries the value in the heading. */
export function keyOf(title: string): { key: Key; inline?: string } | null {
  const direct = TITLES[normalizeTitle(title)];
  if (direct) return { key: direct };
  const m = /^([^:：]+?)\s*[:：]\s*(.*)$/.exec(title.trim());
  if (m) {
    const k = TITLES[normalizeTitle(m[1] ?? '')];
    if (k && k !== 'findings' && k !== 'references') return { key: k, inline: (m[2] ?? '').trim() };
  }
  return null;
}

/**
 * The toolkit's own agents (subagent-contract's agent types, the insight and delegation tables),
 * and the contract template's placeholder `[Agent Name]` as written: a `## <role> Result` under
 * one of these is the contract's heading, not any "… Result" title (red team round 12, 1).
 */
const TOOLKIT_ROLES: ReadonlySet<string> = new Set([
  'code-explorer',
  'explore',
  'code-architect',
  'system-architect',
  'qa-engineer',
  'security-auditor',
  'frontend-specialist',
  'backend-specialist',
  'product-manager',
  'verification-specialist',
  'ui-ux-designer',
  'technical-writer',
  'agent-name',
  'エージェント名',
]);

/** Whether a role (`Security Auditor`, `qa-engineer`, `[Agent Name]`) is one of the toolkit's. */
export function isToolkitRole(role: string): boolean {
  return TOOLKIT_ROLES.has(
    role
      .trim()
      .toLowerCase()
      .replace(/[\s_]+/g, '-'),
  );
}

/** The role of a `## <role> Result` (or `結果`) heading; null for other headings. */
export function roleOf(title: string): string | null {
  const m = /^(.*?)\s*(?:Result|結果)$/i.exec(title.trim());
  if (!m) return null;
  return unwrap((m[1] ?? '').replace(/^\[(.*)\]$/, '$1').trim());
}
