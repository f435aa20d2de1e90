/**
 * A maxsim contract handoff that passes with evidence and lists `artifacts` under Artifacts:
 * the shape the claim tests record to see how each artifact line is judged.
 */
export const maxsimContract = (artifacts: string[]): string =>
  [
    '### Key Decisions',
    '- Kept the module layout',
    '### Artifacts',
    ...artifacts,
    '### Status',
    'PASS',
    'Evidence:',
    '- `npm test` 12 passed, 0 failed',
    '### Deferred Items',
    'None',
    '',
  ].join('\n');
