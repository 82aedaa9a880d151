import { CommandError } from '../errors.ts';

// What the operating system said, in words that name the fix; the code stays for searching.
const reasons: Readonly<Record<string, string>> = {
  EADDRINUSE: 'the address is already in use',
  EADDRNOTAVAIL: "the address is not one of this machine's",
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EISDIR: 'it is a folder, not a file',
  ENOENT: 'no such file or folder',
  EEXIST: 'something else already exists there',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  ENOTFOUND: 'the host name does not resolve',
};

/**
 * An operating error the user can fix (a port in use, a folder that cannot be written) as a SYSTEM_REFUSED command
 * error: the CLI prints one line naming what and why and exits 2, instead of a stack trace. Anything else is
 * rethrown as it is.
 */
export function asSystemError(error: unknown, doing: string): never {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && Object.hasOwn(reasons, code))
    throw new CommandError('SYSTEM_REFUSED', `${doing}: ${reasons[code]} (${code})`);
  throw error;
}
