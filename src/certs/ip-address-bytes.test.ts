import { describe, expect, it } from 'vitest';
import { ipAddressBytes } from './ip-address-bytes.ts';

const hex = (bytes: Uint8Array | undefined): string | undefined => (bytes ? Buffer.from(bytes).toString('hex') : undefined);

describe('ipAddressBytes', () => {
  it('encodes IPv4 as 4 bytes', () => {
    expect(hex(ipAddressBytes('127.0.0.1'))).toBe('7f000001');
    expect(hex(ipAddressBytes('10.96.0.10'))).toBe('0a60000a');
  });

  it('encodes IPv6 as 16 bytes, expanding ::', () => {
    expect(hex(ipAddressBytes('::1'))).toBe('00000000000000000000000000000001');
    expect(hex(ipAddressBytes('::'))).toBe('00000000000000000000000000000000');
    expect(hex(ipAddressBytes('fe80::1'))).toBe('fe800000000000000000000000000001');
    expect(hex(ipAddressBytes('2001:db8::8a2e:370:7334'))).toBe('20010db80000000000008a2e03707334');
    expect(hex(ipAddressBytes('2001:db8:0:0:1:0:0:1'))).toBe('20010db8000000000001000000000001');
    expect(hex(ipAddressBytes('fd00::'))).toBe('fd000000000000000000000000000000');
  });

  it('encodes IPv6 with an embedded IPv4 tail', () => {
    expect(hex(ipAddressBytes('::ffff:192.168.1.2'))).toBe('00000000000000000000ffffc0a80102');
  });

  it('rejects what is not an address', () => {
    for (const bad of ['', 'localhost', '256.0.0.1', '1.2.3', 'fe80::1%eth0', '1::2::3', ' 127.0.0.1']) {
      expect(ipAddressBytes(bad), bad).toBeUndefined();
    }
  });
});
