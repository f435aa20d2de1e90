/**
 * vitest setup file (see vitest.config.ts): runs before each test file, in its worker.
 */
import { afterAll } from 'vitest';
import { cleanup, isolateProcess } from './env.js';

isolateProcess();
afterAll(() => cleanup());
