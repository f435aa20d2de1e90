/**
 * Writes loose objects atomically: deflate into a temporary file in the same directory, then
 * rename into place. isomorphic-git writes straight to the final path and never rewrites an
 * object that exists, so a writer killed mid-write would leave a torn object under a valid
 * name for good; here a kill leaves at most a stray temporary file.
 */
import { nodeCrypto } from '../../model/node-crypto.js';
import { mkdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import type { ObjectType } from '../port.js';
import { hashObject } from '../objects.js';

export async function writeLooseObject(
  objectsDir: string,
  type: ObjectType,
  bytes: Uint8Array,
  level = 1,
): Promise<string> {
  const oid = hashObject(type, bytes);
  const dir = join(objectsDir, oid.slice(0, 2));
  const file = join(dir, oid.slice(2));
  if (await exists(file)) return oid;
  await mkdir(dir, { recursive: true });
  const header = Buffer.from(`${type} ${bytes.length}\0`);
  const deflated = deflateSync(Buffer.concat([header, bytes]), { level });
  const temp = join(dir, `tmp_obj_${nodeCrypto().randomBytes(6).toString('hex')}`);
  try {
    await writeFile(temp, deflated, { flag: 'wx', mode: 0o444 });
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  return oid;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
