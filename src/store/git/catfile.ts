/**
 * One long-lived `git cat-file --batch` serving every object read of a command. Spawning git
 * per object costs 7–15 ms; a batch answers in tens of microseconds and reads every object
 * format git itself can (packs, deltas, alternates), which is why reads do not go through
 * isomorphic-git (see docs/design.md).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { internalError, LedgerError } from '../../model/errors.js';
import type { GitObject, ObjectType } from '../port.js';
import { gitEnv, SAFE_CONFIG } from './exec.js';

interface Pending {
  oid: string;
  resolve: (object: GitObject | undefined) => void;
  reject: (error: Error) => void;
}

const OID = /^[0-9a-f]{40}$/;

export class CatFileBatch {
  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly pending: Pending[] = [];
  private buffer: Buffer = Buffer.alloc(0);
  /**
   * While a large object streams in, chunks wait here until all of it has arrived: joining
   * each 64 KiB chunk onto the buffer would cost O(n²), so an 80 MB blob that deflates to
   * 80 KB (a zlib bomb in a pulled ledger) would keep `verify` busy for minutes.
   */
  private waiting: Buffer[] = [];
  private waitingBytes = 0;
  private need = 0;
  private failure: Error | undefined;

  constructor(private readonly cwd: string) {}

  read(oid: string): Promise<GitObject | undefined> {
    // An id that is not 40 hex would be taken as a revision expression by cat-file.
    if (!OID.test(oid)) return Promise.resolve(undefined);
    if (this.failure) return Promise.reject(this.failure);
    const child = this.start();
    return new Promise((resolve, reject) => {
      this.pending.push({ oid, resolve, reject });
      child.stdin.write(`${oid}\n`);
    });
  }

  close(): void {
    if (this.child) {
      this.child.stdin.end();
      this.child = undefined;
    }
  }

  private start(): ChildProcessWithoutNullStreams {
    if (this.child) return this.child;
    const child = spawn('git', [...SAFE_CONFIG, 'cat-file', '--batch'], {
      cwd: this.cwd,
      env: gitEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    child.stderr.resume();
    child.on('error', (error) => this.fail(error));
    child.on('close', (code) => {
      // git dies on an object it cannot inflate (a damaged pack): that is damaged ledger data
      // (exit 3), not a crash of ours.
      if (this.pending.length > 0)
        this.fail(
          new LedgerError(
            'CORRUPT',
            `git cat-file exited with ${code} while reading ${this.pending[0]!.oid}: the object database is damaged`,
          ),
        );
      this.child = undefined;
    });
    child.stdin.on('error', (error) => this.fail(error));
    this.child = child;
    return child;
  }

  private fail(error: Error): void {
    this.failure = error;
    for (const p of this.pending.splice(0)) p.reject(error);
  }

  private onData(chunk: Buffer): void {
    if (this.need > 0) {
      this.waiting.push(chunk);
      this.waitingBytes += chunk.length;
      if (this.buffer.length + this.waitingBytes < this.need) return;
      this.buffer = Buffer.concat([this.buffer, ...this.waiting]);
      this.waiting = [];
      this.waitingBytes = 0;
      this.need = 0;
    } else {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    }
    while (this.pending.length > 0) {
      const newline = this.buffer.indexOf(0x0a);
      if (newline < 0) return;
      const header = this.buffer.toString('latin1', 0, newline);
      const head = this.pending[0]!;
      if (header.endsWith(' missing') || header.endsWith(' ambiguous')) {
        this.buffer = this.buffer.subarray(newline + 1);
        this.pending.shift();
        head.resolve(undefined);
        continue;
      }
      const [, type, sizeText] = header.split(' ');
      const size = Number(sizeText);
      if (!Number.isInteger(size)) {
        this.fail(internalError(`git cat-file --batch answered ${JSON.stringify(header)}`));
        return;
      }
      const end = newline + 1 + size;
      if (this.buffer.length < end + 1) {
        this.need = end + 1;
        return;
      }
      const bytes = Uint8Array.prototype.slice.call(this.buffer, newline + 1, end);
      this.buffer = this.buffer.subarray(end + 1);
      this.pending.shift();
      head.resolve({ type: type as ObjectType, bytes });
    }
  }
}
