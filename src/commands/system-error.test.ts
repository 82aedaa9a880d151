import { describe, expect, it } from 'vitest';
import { UsageError } from './command.ts';
import { asUsageError } from './system-error.ts';

describe('asUsageError', () => {
  it('turns an operating error the user can fix into one line that names what and why', () => {
    // As root (CI containers) no folder is unwritable, so EACCES is built here; ENOTDIR and EEXIST are real in cli.test.ts.
    const denied = Object.assign(new Error("EACCES: permission denied, mkdir '/srv/pki'"), { code: 'EACCES' });
    expect(() => asUsageError(denied, 'cannot write the certificates to /srv/pki')).toThrow(
      new UsageError('cannot write the certificates to /srv/pki: permission denied (EACCES)'),
    );
  });

  it('rethrows anything else as it is', () => {
    const bug = new TypeError('x is undefined');
    expect(() => asUsageError(bug, 'doing something')).toThrow(bug);
  });
});
