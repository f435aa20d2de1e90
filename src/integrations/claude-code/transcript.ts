/**
 * The agent's final message, read from a Claude Code transcript (JSON Lines, one entry per
 * line: `{"type":"assistant","message":{"id":"msg_…","role":"assistant","content":[{"type":
 * "text","text":"…"}]},"isSidechain":false,…}`). Claude Code writes each content block of one
 * API message as its own line, all with the same `message.id`, so the final message is the
 * text blocks of the last assistant `message.id`, in order.
 *
 * Transcripts grow to hundreds of megabytes, so only the tail is read: 64 KiB first, twice as
 * much while the final message may start before it, at most TRANSCRIPT_TAIL_BYTES (a hook pays
 * for this on every turn, conversational ones included). The file is opened
 * non-blocking and must be a regular file: a FIFO named as the transcript can never hang a
 * stop hook.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { LedgerError } from '../../model/errors.js';

/** How much of the transcript's end is read: the final message is near the end. */
export const TRANSCRIPT_TAIL_BYTES = 8 * 1024 * 1024;

export interface FinalMessageOptions {
  /**
   * Accept entries of a sidechain (a subagent's own transcript marks every entry
   * `isSidechain: true`); false for the main session's transcript, where sidechain entries
   * belong to subagents, not to the agent that is stopping.
   */
  sidechain: boolean;
  tailBytes?: number;
}

/**
 * The text of the last assistant message, or undefined when the transcript's last message
 * entry is not an assistant's text (the turn's message is not written yet, or the agent
 * ended on a tool call).
 */
export async function readFinalMessage(
  path: string,
  options: FinalMessageOptions,
): Promise<string | undefined> {
  const max = options.tailBytes ?? TRANSCRIPT_TAIL_BYTES;
  for (let size = Math.min(FIRST_TAIL_BYTES, max); ; size = Math.min(size * 2, max)) {
    const tail = await readTail(path, size);
    const scan = scanFinalMessage(tail.text.split('\n'), options.sidechain);
    // Decided inside this tail, or nothing more to read: a longer tail gives the same answer.
    if (scan.settled || tail.whole || size >= max) return scan.text;
  }
}

/** The first tail read: a final message is usually far shorter. */
const FIRST_TAIL_BYTES = 64 * 1024;

/** Pure: the final assistant message of transcript lines (unparseable lines are skipped). */
export function finalMessageOf(lines: readonly string[], sidechain: boolean): string | undefined {
  return scanFinalMessage(lines, sidechain).text;
}

/**
 * The scan behind finalMessageOf; `settled` when it stopped before the first line, so that
 * lines before these could not change the answer.
 */
function scanFinalMessage(
  lines: readonly string[],
  sidechain: boolean,
): { text: string | undefined; settled: boolean } {
  let settled = false;
  let messageId: string | undefined;
  let found = false;
  const blocks: string[] = [];
  for (let i = lines.length - 1; i >= 0; i--) {
    const entry = parseEntry(lines[i]!);
    if (entry === undefined) continue;
    if (entry.type !== 'user' && entry.type !== 'assistant') continue; // summaries, snapshots, progress…
    if (entry.isSidechain === true && !sidechain) continue;
    if (!found) {
      // A user entry (a prompt, a tool result, hook feedback) after the last assistant message:
      // the turn's final message is not in the file.
      if (entry.type === 'user' || !isRealAssistant(entry))
        return { text: undefined, settled: true };
      found = true;
      messageId = entry.message.id;
    } else if (
      entry.type !== 'assistant' ||
      messageId === undefined ||
      entry.message.id !== messageId
    ) {
      settled = true;
      break;
    }
    blocks.unshift(...textBlocks(entry.message.content));
  }
  const text = blocks.join('\n\n');
  return { text: text.trim() === '' ? undefined : text, settled };
}

interface Entry {
  type: string;
  isSidechain?: unknown;
  isApiErrorMessage?: unknown;
  message: { id?: string; role?: unknown; model?: unknown; content?: unknown };
}

function parseEntry(line: string): Entry | undefined {
  if (line.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined; // a torn first line of the tail, or a line being written
  }
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v['type'] !== 'string') return undefined;
  const message = v['message'];
  if (message === null || typeof message !== 'object')
    return v['type'] === 'user' ? { type: 'user', message: {} } : undefined;
  const m = message as Record<string, unknown>;
  return {
    type: v['type'],
    isSidechain: v['isSidechain'],
    isApiErrorMessage: v['isApiErrorMessage'],
    message: {
      ...(typeof m['id'] === 'string' ? { id: m['id'] } : {}),
      role: m['role'],
      model: m['model'],
      content: m['content'],
    },
  };
}

/** Not an API error or a message Claude Code made up itself (`model: "<synthetic>"`). */
function isRealAssistant(entry: Entry): boolean {
  return (
    entry.type === 'assistant' &&
    entry.isApiErrorMessage !== true &&
    entry.message.model !== '<synthetic>' &&
    (entry.message.role === undefined || entry.message.role === 'assistant')
  );
}

function textBlocks(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  const out: string[] = [];
  for (const block of content) {
    if (block === null || typeof block !== 'object') continue;
    const b = block as Record<string, unknown>;
    if (b['type'] === 'text' && typeof b['text'] === 'string') out.push(b['text']);
  }
  return out;
}

async function readTail(path: string, maxBytes: number): Promise<{ text: string; whole: boolean }> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new LedgerError(
      'INVALID_INPUT',
      `cannot read the transcript ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`,
      { hint: 'The hook input names a transcript_path that Claude Code should have written.' },
    );
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      throw new LedgerError('INVALID_INPUT', `the transcript ${path} is not a regular file`, {
        hint: 'transcript_path must name the JSON Lines file Claude Code writes.',
      });
    }
    const start = Math.max(0, stat.size - maxBytes);
    const length = stat.size - start;
    const buffer = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const { bytesRead } = await handle.read(buffer, read, length - read, start + read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    const text = buffer.subarray(0, read).toString('utf8');
    // A tail that starts mid-file starts mid-line: drop the partial first line.
    if (start === 0) return { text, whole: true };
    const newline = text.indexOf('\n');
    return { text: newline < 0 ? '' : text.slice(newline + 1), whole: false };
  } finally {
    await handle.close();
  }
}
