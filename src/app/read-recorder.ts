/**
 * An object reader that notes which objects it was asked for and whether each was there: the
 * verified-state cache lists them, so that a later run can prove in one batch that everything
 * the cached verdicts read is unchanged in presence (see verify-cache.ts).
 */
import type { ObjectReader } from '../store/port.js';
import type { ObjectsRead } from './verify-cache.js';

export interface RecordingReader {
  reader: ObjectReader;
  read(): ObjectsRead;
}

export function recordReads(store: ObjectReader): RecordingReader {
  const present = new Set<string>();
  const absent = new Set<string>();
  const note = (oid: string, found: boolean) => (found ? present : absent).add(oid);
  const reader: ObjectReader = {
    async read(oid) {
      const object = await store.read(oid);
      note(oid, object !== undefined);
      return object;
    },
    async readChunks(oid, onChunk) {
      const info = await store.readChunks(oid, onChunk);
      note(oid, info !== undefined);
      return info;
    },
    ...(store.prefetch === undefined
      ? {}
      : { prefetch: (oids: Iterable<string>) => store.prefetch!(oids) }),
  };
  return {
    reader,
    read: () => ({ present: [...present], absent: [...absent].filter((o) => !present.has(o)) }),
  };
}
