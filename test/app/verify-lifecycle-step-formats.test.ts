/**
 * verify-lifecycle.ts names the formats a lifecycle step can be written in by hand, so that an
 * honest ledger's verify loads no lifecycle code (test/cli/startup.test.ts). The name must stay
 * the lifecycle format's: a step in a format left out would never be judged again on a cached
 * run.
 */
import { describe, expect, it } from 'vitest';
import { STEP_FORMATS } from '../../src/app/verify-lifecycle.js';
import { lifecycleFormat } from '../../src/formats/lifecycle.js';
import { LIFECYCLE_FORMAT } from '../../src/model/record.js';

describe('the formats a lifecycle step is written in', () => {
  it('are the lifecycle kind and the lifecycle format’s own name', () => {
    expect([...STEP_FORMATS].sort()).toEqual([LIFECYCLE_FORMAT, lifecycleFormat.name].sort());
  });
});
