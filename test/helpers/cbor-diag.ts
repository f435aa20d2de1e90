/**
 * CBOR diagnostic notation (RFC 8949 §8) read straight off the bytes, for the golden vectors in
 * spec/: written from the RFC with nothing from src/, so the notation a second implementer reads
 * is the bytes' own and not our encoder's idea of them. Covers what ledger's objects hold
 * (integers, byte and text strings, arrays, maps, false/true/null, definite lengths); anything
 * else throws. Printed one member per line once an item is longer than a line.
 */
const WIDTH = 80;

interface Item {
  /** The notation on one line. */
  flat: string;
  /** Children, for arrays and maps; a map's are "key: value" pairs. */
  open?: string;
  close?: string;
  children?: { prefix: string; item: Item }[];
}

export function diagnostic(bytes: Uint8Array): string {
  let pos = 0;
  const need = (n: number) => {
    if (pos + n > bytes.length) throw new Error(`CBOR diag: truncated at byte ${pos}`);
  };
  const argument = (ai: number): number => {
    if (ai < 24) return ai;
    if (ai > 27) throw new Error(`CBOR diag: additional information ${ai} at byte ${pos - 1}`);
    const size = 1 << (ai - 24);
    need(size);
    let n = 0;
    for (let i = 0; i < size; i++) n = n * 256 + bytes[pos++]!;
    if (!Number.isSafeInteger(n)) throw new Error('CBOR diag: argument above 2^53');
    return n;
  };
  const item = (): Item => {
    need(1);
    const ib = bytes[pos++]!;
    const major = ib >> 5;
    const ai = ib & 31;
    if (major === 7) {
      if (ai === 20) return { flat: 'false' };
      if (ai === 21) return { flat: 'true' };
      if (ai === 22) return { flat: 'null' };
      throw new Error(`CBOR diag: simple value or float 0x${ib.toString(16)}`);
    }
    const n = argument(ai);
    switch (major) {
      case 0:
        return { flat: String(n) };
      case 1:
        return { flat: String(-1 - n) };
      case 2: {
        need(n);
        const hex = Buffer.from(bytes.subarray(pos, pos + n)).toString('hex');
        pos += n;
        return { flat: `h'${hex}'` };
      }
      case 3: {
        need(n);
        const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(pos, pos + n));
        pos += n;
        return { flat: JSON.stringify(text) };
      }
      case 4: {
        const children = Array.from({ length: n }, () => ({ prefix: '', item: item() }));
        return container('[', ']', children);
      }
      case 5: {
        const children = Array.from({ length: n }, () => {
          const key = item();
          return { prefix: `${key.flat}: `, item: item() };
        });
        return container('{', '}', children);
      }
      default:
        throw new Error(`CBOR diag: tag ${n}`);
    }
  };
  const top = item();
  if (pos !== bytes.length) throw new Error(`CBOR diag: ${bytes.length - pos} trailing byte(s)`);
  return render(top, '');
}

function container(open: string, close: string, children: { prefix: string; item: Item }[]): Item {
  const flat = `${open}${children.map((c) => c.prefix + c.item.flat).join(', ')}${close}`;
  return { flat, open, close, children };
}

function render(item: Item, indent: string, prefix = ''): string {
  if (item.children === undefined || indent.length + prefix.length + item.flat.length <= WIDTH)
    return item.flat;
  const inner = `${indent}  `;
  const lines = item.children.map((c) => `${inner}${c.prefix}${render(c.item, inner, c.prefix)}`);
  return `${item.open}\n${lines.join(',\n')}\n${indent}${item.close}`;
}
