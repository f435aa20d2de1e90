/**
 * Which part of an agent's final message is the handoff. Agents end a run either with the
 * handoff itself (a MaxsimCLI contract in Markdown, a team-orchestration result) or with a
 * sentence and the handoff in a fenced block (a JSON manifest). The whole message is tried
 * first, then each fenced block from the last one back; the first a format module recognises
 * wins. A message none recognises is no handoff: a conversational turn, not a run's end —
 * unless a part of it is plainly meant as a handoff (a JSON object with a `status` and handoff
 * keys, `malformedHandoffFormat`): that is a malformed handoff, recorded so that it is refused.
 */
import {
  detectFormat,
  formatModule,
  malformedHandoffFormat,
  type FormatModule,
} from '../../formats/index.js';
import type { FormatName } from '../../model/record.js';

export interface PickedHandoff {
  bytes: Uint8Array;
  format: FormatName;
  /** Where in the message the handoff was: the whole message or a fenced block. */
  from: 'message' | 'fenced-block';
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
  for (const candidate of encoded) {
    const module = pinned === undefined ? detect(candidate.bytes) : formatModule(pinned);
    if (module) return { bytes: candidate.bytes, format: module.name, from: candidate.from };
  }
  // A handoff no format recognises but plainly meant as one (`{"status": "done", "summary": …}`)
  // is a refused handoff, never "no handoff": recording it says what is wrong, and
  // `--block refused` holds.
  for (const candidate of encoded) {
    const module = malformedHandoffFormat(candidate.bytes);
    if (module) return { bytes: candidate.bytes, format: module.name, from: candidate.from };
  }
  return undefined;
}

function detect(bytes: Uint8Array): FormatModule | undefined {
  try {
    return detectFormat(bytes).module;
  } catch {
    return undefined;
  }
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
