/**
 * The handoff lifecycle (accept, reject, supersede) and the format that defines it, without the
 * registry: `log` reads steps and states on every call, and importing the registry is importing
 * every format module, their parsers and zod (issue 21). The registry's module carries this same
 * object; test/formats/lifecycle-provider.test.ts holds the two to each other.
 */
import type { FormatName } from '../model/record.js';
import type { Lifecycle } from './contract.js';
import { kxmLifecycle } from './kxm/lifecycle.js';

export const lifecycleFormat: { readonly name: FormatName; readonly lifecycle: Lifecycle } = {
  name: 'kxm',
  lifecycle: kxmLifecycle,
};
