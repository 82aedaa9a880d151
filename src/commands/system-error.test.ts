import { describe, expect, it } from 'vitest';
import { CommandError } from '../errors.ts';
import { asSystemError } from './system-error.ts';

describe('asSystemError', () => {
  it('turns an operating error the user can fix into one line that names what and why', () => {
    // As root (CI containers) no folder is unwritable, so EACCES is built here; ENOTDIR and EEXIST are real in cli.test.ts.
    const denied = Object.assign(new Error("EACCES: permission denied, mkdir '/srv/pki'"), { code: 'EACCES' });
    const thrown = (() => {
      try {
        asSystemError(denied, 'cannot write the certificates to /srv/pki');
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(CommandError);
    expect(thrown).toMatchObject({
      code: 'SYSTEM_REFUSED',
      exitStatus: 2,
      message: 'cannot write the certificates to /srv/pki: permission denied (EACCES)',
    });
  });

  it('rethrows anything else as it is', () => {
    const bug = new TypeError('x is undefined');
    expect(() => asSystemError(bug, 'doing something')).toThrow(bug);
  });
});
