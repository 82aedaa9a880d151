import { isIPv4, isIPv6 } from 'node:net';

// The network-order bytes an iPAddress subjectAltName holds. Written here rather than taken
// from node-forge because forge's IPv6 parser does not understand embedded IPv4 (::ffff:1.2.3.4).
// Returns undefined for anything that is not a plain IPv4 or IPv6 address (zone ids included:
// they mean nothing outside the host that wrote them).
export function ipAddressBytes(ip: string): Uint8Array | undefined {
  if (isIPv4(ip)) return Uint8Array.from(ip.split('.').map(Number));
  if (!isIPv6(ip) || ip.includes('%')) return undefined;

  const groups = (part: string): number[] => {
    if (part === '') return [];
    return part.split(':').flatMap((group) => {
      if (!group.includes('.')) return [Number.parseInt(group, 16)];
      const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
      return [(a << 8) | b, (c << 8) | d];
    });
  };
  const [head = '', tail] = ip.split('::');
  const headGroups = groups(head);
  const tailGroups = tail === undefined ? [] : groups(tail);
  const zeros = new Array<number>(8 - headGroups.length - tailGroups.length).fill(0);
  const bytes = new Uint8Array(16);
  [...headGroups, ...zeros, ...tailGroups].forEach((group, i) => {
    bytes[2 * i] = group >> 8;
    bytes[2 * i + 1] = group & 0xff;
  });
  return bytes;
}
