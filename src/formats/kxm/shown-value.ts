/**
 * What a labelled bullet's value shows on GitHub (red team round 15, readers finding 3). A value
 * struck out (GFM strikethrough, `~~`0`~~ `1``) is withdrawn, not the value: read first, it made
 * an exit code a reviewer reads as 1 a passed check. Strikethrough is read as cmark-gfm reads
 * it: one or two tildes, the same run closing as opened, each run flanking as emphasis is
 * (CommonMark 6.2), never inside a code span. Pure and total.
 */
import { codeSpans } from '../kit/markdown.js';
import { withoutStruck } from '../kit/struck.js';

/** The values a bullet names: its code spans once struck-out text is dropped, else its text. */
export function shownValues(text: string): string[] {
  const shown = withoutStruck(text);
  const spans = codeSpans(shown);
  return spans.length > 0 ? [...new Set(spans)] : [shown.trim()];
}
