/**
 * Which part of an agent's final message is the handoff. Agents end a run either with the
 * handoff itself (a MaxsimCLI contract in Markdown, a team-orchestration result) or with a
 * sentence and the handoff in a fenced block (a JSON manifest). The whole message is tried
 * first, then each fenced block from the last one back; the first a format module recognises
 * wins. A message none recognises is no handoff: a conversational turn, not a run's end —
 * unless a part of it is plainly meant as a handoff: a JSON object with a `status` and handoff
 * keys (`malformedHandoffFormat`), a malformed handoff recorded so that it is refused; or a
 * part some format claims, but too weakly or as much as another (`tryDetectFormat`'s claimant), which
 * `record` refuses for that reason and so the hook does too, saying why. Otherwise the less a
 * handoff carried, the less the gate would look at it: `## Status PASS` with no evidence would
 * pass a stop that the same handoff with its evidence section is blocked at.
 */
import {
  formatModule,
  malformedHandoffFormat,
  tryDetectFormat,
  type FormatModule,
} from '../../formats/index.js';
import type { Problem } from '../../model/errors.js';
import type { FormatName } from '../../model/record.js';

export interface PickedHandoff {
  bytes: Uint8Array;
  /** The format it is read as; for a refused one, the format that claimed it most. */
  format: FormatName;
  /** Where in the message the handoff was: the whole message or a fenced block. */
  from: 'message' | 'fenced-block';
  /**
   * Why detection will not read it (too weak, or two formats alike): a handoff ledger refuses,
   * as `record` refuses the same bytes. Absent when it is read as `format`.
   */
  refused?: Problem[];
}

/** The handoff in `message`, or undefined when it carries none. */
export function pickHandoff(message: string, pinned?: FormatName): PickedHandoff | undefined {
  const candidates: { text: string; from: PickedHandoff['from'] }[] = [
    { text: message, from: 'message' },
    ...fencedBlocks(message)
      .reverse()
      .map((text) => ({ text, from: 'fenced-block' as const })),
  ];
  const encoded = candidates.map((c) => ({
    ...c,
    bytes: new Uint8Array(Buffer.from(c.text, 'utf8')),
  }));
  const refusals: PickedHandoff[] = [];
  for (const candidate of encoded) {
    const found = pinned === undefined ? detect(candidate.bytes) : formatModule(pinned);
    if (found === undefined) continue;
    if ('refused' in found) refusals.push({ ...candidate, ...found });
    else return { bytes: candidate.bytes, format: found.name, from: candidate.from };
  }
  // A handoff no format recognises but plainly meant as one (`{"status": "done", "summary": …}`)
  // is a refused handoff, never "no handoff": recording it says what is wrong, and
  // `--block refused` holds.
  for (const candidate of encoded) {
    const module = malformedHandoffFormat(candidate.bytes);
    if (module) return { bytes: candidate.bytes, format: module.name, from: candidate.from };
  }
  // Then one a format claims but detection will not read: refused, with detection's reason.
  const first = refusals[0];
  return first === undefined
    ? undefined
    : { bytes: first.bytes, format: first.format, from: first.from, refused: first.refused! };
}

/** The module detection reads `bytes` as; a refusal when a module claims it but too weakly. */
function detect(
  bytes: Uint8Array,
): FormatModule | { format: FormatName; refused: Problem[] } | undefined {
  // One ranking answers both: what detection reads, and which module claims what it refuses.
  const tried = tryDetectFormat(bytes);
  if ('detected' in tried) return tried.detected.module;
  if (tried.claimant === undefined) return undefined;
  const error = tried.refused;
  // Worded as `record` words it (record-input.ts): the message, then its hint.
  const message = error.hint ? `${error.message.replace(/\.$/, '')}. ${error.hint}` : error.message;
  return { format: tried.claimant.name, refused: [{ path: '', message }] };
}

/** Contents of ``` and ~~~ fenced blocks (CommonMark: the closing fence at least as long). */
export function fencedBlocks(text: string): string[] {
  const out: string[] = [];
  const lines = text.split('\n');
  let open: { fence: string; body: string[] } | undefined;
  for (const line of lines) {
    if (open === undefined) {
      const start = /^ {0,3}(`{3,}|~{3,})[^`]*$/.exec(line);
      if (start) open = { fence: start[1]!, body: [] };
      continue;
    }
    const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
    if (close && close[1]![0] === open.fence[0] && close[1]!.length >= open.fence.length) {
      out.push(`${open.body.join('\n')}\n`);
      open = undefined;
    } else {
      open.body.push(line);
    }
  }
  return out;
}
