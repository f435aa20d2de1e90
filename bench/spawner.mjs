// The process every measured command is started from (common.mjs `timed`). It stays small: a
// fork() copies the page tables of the process that calls it, so a command the bench started
// itself, while it held hundreds of MB (the 1,000-writer ledger it builds in memory), began
// 20–35 ms later than from a shell — on both sides of a row, which pulled every ratio toward 1.
// Measured from Node: `true` 5 ms from a 46 MB process, 23 ms at 570 MB, 35 ms at 1.6 GB.
// One message in ({ id, cmd, args, cwd, env, stdinFile }), one out ({ id, code, stdout, stderr,
// seconds } or { id, error }), for any number at once; it exits when the bench goes.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';

process.on('message', ({ id, cmd, args, cwd, env, stdinFile }) => {
  // One answer per job: a command that cannot start emits 'error' and then 'close'.
  let answered = false;
  const answer = (message) => {
    if (answered) return;
    answered = true;
    process.send({ id, ...message });
  };
  let fd = 'ignore';
  try {
    if (stdinFile !== undefined) fd = openSync(stdinFile, 'r');
  } catch (error) {
    answer({ error: `cannot open ${stdinFile} for the command's stdin: ${String(error)}` });
    return;
  }
  const started = process.hrtime.bigint();
  const child = spawn(cmd, args, { cwd, env, stdio: [fd, 'pipe', 'pipe'] });
  if (typeof fd === 'number') closeSync(fd);
  const out = [];
  const err = [];
  child.stdout.on('data', (c) => out.push(c));
  child.stderr.on('data', (c) => err.push(c));
  child.on('error', (e) => answer({ error: String(e) }));
  child.on('close', (code) => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    answer({
      code,
      stdout: Buffer.concat(out).toString(),
      stderr: Buffer.concat(err).toString(),
      seconds,
    });
  });
});
process.on('disconnect', () => process.exit(0));
