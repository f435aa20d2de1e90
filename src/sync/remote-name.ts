/**
 * Whether a remote name is one git would make (`git remote add`) and does not begin with `-`
 * (git takes one after `--`; ledger never needs one, and it reads as an option). The name
 * comes from the repository's config — `--remote`, or the current branch's `branch.<b>.remote`
 * — and the agent writes that config: a remote named `--upload-pack=<cmd>` set as the upstream
 * was passed to `git fetch` as an option, and git ran `<cmd>` (red team, round nine). It also
 * becomes part of ref names (`refs/ledger-remotes/<name>/`, `refs/ledger-synced/<name>/`), so
 * it must be a valid ref path: git's own rule (remote.c `valid_remote_name`, which checks
 * `refs/remotes/<name>/test` with refs.c `check_refname_format`).
 */
export function isValidRemoteName(name: string): boolean {
  if (name === '' || name.startsWith('-')) return false;
  return isValidRefPath(`refs/remotes/${name}/test`);
}

// Control characters, space, and the characters refs.c forbids anywhere in a ref name.
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u0020\u007f~^:?*[\\]/;

/** refs.c `check_refname_format` (no flags) over a full ref name. */
function isValidRefPath(ref: string): boolean {
  if (FORBIDDEN.test(ref) || ref.includes('..') || ref.includes('@{') || ref === '@') return false;
  if (ref.endsWith('.')) return false;
  return ref
    .split('/')
    .every((part) => part !== '' && !part.startsWith('.') && !part.endsWith('.lock'));
}
