export { runWitness, type WitnessOptions, type WitnessRun } from './run.js';
export {
  scrubbedEnv,
  WITNESS_ENV_ALLOWED,
  WITNESS_ENV_DENIED,
  WITNESS_ENV_PROTECTIVE,
} from './env.js';
export {
  CheckoutOverBudget,
  DEFAULT_CHECKOUT_BUDGET,
  materializeTree,
  parseTreeEntries,
  type CheckoutBudget,
} from './materialize.js';
export {
  isSecretName,
  maskSecrets,
  MASK,
  MIN_SECRET_LENGTH,
  secretsOf,
  type Secret,
} from './mask.js';
export { onInterrupt } from './interrupt.js';
export {
  describeIsolation,
  forgetIsolationProbe,
  ISOLATION_MODES,
  namespacesOf,
  probeIsolation,
  readOnlyPaths,
  type Isolation,
  type IsolationMode,
  type SandboxSpec,
} from './sandbox.js';
export { MAX_WORKTREE_BINDS, type WorkTreeIgnored } from './worktree-binds.js';
export {
  createRerunSession,
  lastLines,
  treesInFlight,
  type RerunOutcome,
  type RerunSession,
  type SetupStep,
} from './rerun.js';
