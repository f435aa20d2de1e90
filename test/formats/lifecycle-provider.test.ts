/**
 * `log` takes the handoff lifecycle from src/formats/lifecycle.ts instead of the registry (no
 * format parser, no zod on its path). It must be the registry's lifecycle, not a second copy
 * that could drift: the one module that defines a lifecycle carries this very object.
 */
import { describe, expect, it } from 'vitest';
import { formatModules } from '../../src/formats/index.js';
import { lifecycleFormat } from '../../src/formats/lifecycle.js';

describe('the lifecycle outside the registry', () => {
  it('is the lifecycle of the one registry module that defines one, by identity', () => {
    const defining = formatModules().filter((m) => m.lifecycle !== undefined);
    expect(defining.map((m) => m.name)).toEqual([lifecycleFormat.name]);
    expect(defining[0]!.lifecycle).toBe(lifecycleFormat.lifecycle);
  });
});
