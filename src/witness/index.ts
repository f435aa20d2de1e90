export { runWitness, type WitnessOptions, type WitnessRun } from './run.js';
export {
  scrubbedEnv,
  WITNESS_ENV_ALLOWED,
  WITNESS_ENV_DENIED,
  WITNESS_ENV_PROTECTIVE,
} from './env.js';
export { materializeTree, parseTreeEntries } from './materialize.js';
