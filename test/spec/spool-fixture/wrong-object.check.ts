// Spools, through the writers' own hook, a record whose claims have no status, and a log entry
// that is honest: the run must fail on the first and name it.
import { expect, it } from 'vitest';
import { encodeCanonical, toRecordId } from '../../../src/canonical/index.js';
import { spoolCopy } from '../../../src/ledger/spool.js';

it('writes one object the spec does not allow', () => {
  const record = encodeCanonical({
    schema: 'ledger.record/v2',
    format: 'ledger',
    claims: { summary: 'no status' },
    observed: {},
  });
  const entry = encodeCanonical({ schema: 'ledger.log/v1', record: null, prev: [], height: 1 });
  spoolCopy('record', toRecordId(record), record);
  spoolCopy('log-entry', toRecordId(entry), entry);
  expect(process.env['LEDGER_TEST_SPOOL']).toBeTruthy();
});
