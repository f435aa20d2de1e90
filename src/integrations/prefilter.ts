/**
 * Could this final message hold a handoff? Answered from the text alone, before the format
 * modules, zod or git are loaded, so that a conversational turn costs a hook no more than
 * starting node does.
 *
 * The answer errs one way only: "no" only where no format reader could find anything, nor any
 * future reading of a malformed handoff (a `status` key, a fenced block, a format's sections).
 * A handoff this says "no" to is never recorded and never blocked — a hole in the gate — while
 * a "yes" for a conversational turn only costs the turn the full path. So it looks for
 * structure, not for formats: a message that starts like JSON; any fenced block, heading,
 * front matter or setext rule, or a line that is nothing but a bold label; and the words the
 * readers key on even in prose (a structured handoff's `Status: completed` and `Verification:`
 * lines, a MaxsimCLI summary's `**Phase:**`). test/integrations/prefilter.test.ts runs every
 * handoff fixture and corpus document through it, and checks it against pickHandoff on
 * generated messages.
 *
 * Imports nothing: bin/run.js loads it on every hook call.
 */

/** A JSON document: detection parses the whole message as JSON when it starts like one. */
const JSON_START = /^\s*[{[]/;

/**
 * Lines that make Markdown structure the readers look at. JavaScript's multiline `^` also
 * matches after `\r`, U+2028 and U+2029, so every line the readers see (split on `\n`) is
 * looked at here too.
 */
const STRUCTURE = [
  /^[ \t]*(`{3,}|~{3,})/m, // a fence (any indentation: a fence in a list item counts too)
  /^[ \t]*#{1,6}(?:[ \t\r]|$)/m, // an ATX heading (any indentation)
  /^[ \t]*(?:-{3,}|={3,}|\*{3,}|_{3,})[ \t\r]*$/m, // front matter, a setext underline, a rule
  /^[ \t]*(?:\*\*|__)[^\n]{1,200}?(?:\*\*|__)[ \t]*:?[ \t\r]*$/m, // a line that is a bold label
];

/**
 * Words the readers key on outside headings and JSON, in any case: status lines and the
 * structured handoff's labels, a phase summary's opening labels, the Japanese status label.
 */
const WORDS =
  /status|ステータス|verification|findings|recommended|handoff|hand-off|phase|evidence|artifacts|deferred|claims|uncertainty|confidence/i;

/** False only when no handoff reader could find a handoff, well-formed or not, in `text`. */
export function mayHoldHandoff(text: string): boolean {
  if (text.trim() === '') return false;
  if (JSON_START.test(text)) return true;
  for (const re of STRUCTURE) if (re.test(text)) return true;
  return WORDS.test(text);
}
