/**
 * The page's own style and script, and the Content-Security-Policy that allows exactly those
 * two by their sha256 and nothing else. Kept apart from the markup so that the hashed bytes are
 * constants nobody edits by accident while changing the page.
 */
import { createHash } from 'node:crypto';
import { SafeHtml } from './escape.js';

/**
 * Badge colours meet WCAG AA (4.5:1) with white text: green 700 (5.0:1), amber 800 (6.0:1), red
 * 700 (6.5:1), grey 600 (4.8:1).
 */
export const STYLE = `
:root { color-scheme: light; font: 14px/1.45 system-ui, sans-serif; color: #1d1d1f; background: #fafafa; }
body { margin: 0 auto; max-width: 1200px; padding: 1rem 1.5rem 3rem; }
h1 { font-size: 1.5rem; margin: .5rem 0; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
h3 { font-size: .9rem; margin: 1rem 0 .3rem; text-transform: uppercase; letter-spacing: .04em; color: #555; }
code, .mono, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .85em; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .25rem .5rem; border-bottom: 1px solid #e4e4e7; overflow-wrap: anywhere; }
th { font-weight: 600; color: #444; }
td.c-check, td.c-verdict { white-space: nowrap; width: 1%; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: .5rem 0; }
dl.facts dt { color: #555; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.summary { white-space: pre-wrap; background: #f2f2f5; padding: .5rem .75rem; border-radius: 4px; }
#records > details { background: #fff; border: 1px solid #ddd; border-left: 6px solid #15803d; border-radius: 6px; padding: .4rem 1rem; margin: .4rem 0; }
#records > details[open] { padding-bottom: 1rem; }
#records > details > summary { cursor: pointer; display: flex; gap: .6rem; align-items: baseline; flex-wrap: wrap; }
#records > details.c { border-left-color: #b91c1c; }
#records > details.u { border-left-color: #92400e; }
#records > details.s { border-left-color: #4b5563; }
details.fold > summary, #records details details > summary { cursor: pointer; color: #444; margin: .6rem 0 .3rem; }
.badge, b.c, b.u, b.s, b.v, b.i { display: inline-block; white-space: nowrap; padding: 0 .5rem; border-radius: 999px; font-size: .8rem; font-weight: 600; color: #fff; background: #15803d; }
b.c { background: #b91c1c; }
b.u { background: #92400e; }
b.s { background: #4b5563; }
b.i, .badge.integrity { background: #7f1d1d; }
.badge.v-contradicted { background: #b91c1c; }
.badge.v-none { background: #6b7280; }
#summary tbody td:first-child { white-space: nowrap; }
ul.checks > li > code, ul.files > li > bdi:first-of-type { font-weight: 600; }
#filters { display: flex; gap: 1.5rem; align-items: center; flex-wrap: wrap; padding: .75rem 0; border-bottom: 1px solid #ddd; position: sticky; top: 0; background: #fafafa; z-index: 1; }
#filters select { max-width: 24rem; }
pre { background: #f6f6f8; padding: .4rem .6rem; margin: .2rem 0 .6rem; overflow-x: auto; white-space: pre-wrap; }
pre ins { text-decoration: none; background: #dcfce7; }
pre del { text-decoration: none; background: #fee2e2; }
pre i { font-style: normal; color: #1e40af; }
.meta { color: #555; }
.empty { color: #595959; font-style: italic; }
`;

export const SCRIPT = `
"use strict";
(function () {
  var filters = ["verdict", "lifecycle", "task"].map(function (name) {
    return { name: name.charAt(0), select: document.getElementById("filter-" + name) };
  });
  var shown = document.getElementById("shown");
  var rows = Array.prototype.slice.call(document.querySelectorAll("#summary tbody tr"));
  var records = Array.prototype.slice.call(document.querySelectorAll("#records > details"));
  function apply() {
    var visible = 0;
    function match(el) {
      return filters.every(function (f) {
        return f.select.value === "" || el.getAttribute("data-" + f.name) === f.select.value;
      });
    }
    rows.forEach(function (row, i) {
      row.hidden = !match(row);
      if (records[i]) records[i].hidden = row.hidden;
      if (!row.hidden) visible++;
    });
    shown.textContent = visible + " of " + rows.length + " record(s) shown";
  }
  function reveal() {
    var target = location.hash.length > 1 ? document.getElementById(location.hash.slice(1)) : null;
    if (target && target.tagName === "DETAILS") target.open = true;
  }
  filters.forEach(function (f) {
    f.select.addEventListener("change", apply);
  });
  window.addEventListener("hashchange", reveal);
  apply();
  reveal();
})();
`;

function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** The Content-Security-Policy of every page: nothing but its own inline style and script. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src ${cspHash(STYLE)}`,
  `script-src ${cspHash(SCRIPT)}`,
  "img-src 'none'",
  "font-src 'none'",
  "connect-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/**
 * The page's own style or script element, byte for byte the text the CSP hash was computed
 * over (built here, not in the template, so no formatter can re-indent its body). Only ever
 * given the constants above, never anything read from a record.
 */
export function inline(tag: 'style' | 'script', body: typeof STYLE | typeof SCRIPT): SafeHtml {
  return new SafeHtml(`<${tag}>${body}</${tag}>`);
}
