/**
 * The ObjectStore port over a real repository: reads through one `git cat-file --batch`,
 * writes loose objects atomically in-process, refs by compare-and-swap through git.
 */
import fs from 'node:fs';
import git from 'isomorphic-git';
import type { GitObject, ObjectStore, ObjectType } from '../port.js';
import { CatFileBatch } from './catfile.js';
import { writeLooseObject } from './loose.js';
import { updateRefCas } from './refs.js';
import type { RepoPaths } from './repo.js';

export class GitStore implements ObjectStore {
  private readonly batch: CatFileBatch;

  constructor(readonly repo: RepoPaths) {
    this.batch = new CatFileBatch(repo.root);
  }

  read(oid: string): Promise<GitObject | undefined> {
    return this.batch.read(oid);
  }

  write(type: ObjectType, bytes: Uint8Array): Promise<string> {
    return writeLooseObject(this.repo.objectsDir, type, bytes);
  }

  async readRef(name: string): Promise<string | undefined> {
    try {
      // In-process (loose and packed refs) — no spawn for the most frequent question.
      return await git.resolveRef({ fs, gitdir: this.repo.commonDir, ref: name, depth: 1 });
    } catch {
      return undefined;
    }
  }

  updateRef(name: string, next: string, expected: string | undefined): Promise<boolean> {
    return updateRefCas(this.repo.root, name, next, expected, this.repo.commonDir);
  }

  close(): void {
    this.batch.close();
  }
}
