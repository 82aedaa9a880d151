/** The API version of controller-gen's Ruled fixture kind (test/fixtures/controller-gen/api/v1/ruled_types.go). */
export const ruledApiVersion = 'shapes.fixtures.crdgate.example.com/v1';

/**
 * One Ruled as its user would write one, valid, with every field set that a rule judges, so that every rule of the
 * CRD runs (the per-item ones once per item): images, replicas and their bounds, quantities, an https endpoint, an
 * address and a network, a semver, names, permissions, weights, ports, labels, a backup window, int-or-strings, a
 * start time, a timeout, a schedule, DNS names, source CIDRs, requests within limits, mirrors, a maintenance window
 * and a node selector. Values vary with n, so that the objects are not one object repeated.
 *
 * The previous revision ('old') is the same object for two in three; for every third it is what the new one grew
 * from, within the transition rules: a smaller size, an earlier start, one port fewer, a longer timeout. Owner,
 * storage class and mode never change (rules make them immutable), so every UPDATE is allowed.
 */
export function ruledObject(n: number, revision: 'new' | 'old'): Record<string, unknown> {
  const changed = revision === 'old' && n % 3 === 0;
  const team = `team-${n % 40}`;
  const tier = n % 4 === 0 ? 'gold' : n % 4 === 1 ? 'silver' : undefined;
  const sizeGi = 10 + (n % 5) * 10 - (changed ? 5 : 0);
  return {
    apiVersion: ruledApiVersion,
    kind: 'Ruled',
    metadata: { name: `ruled-${n}`, namespace: team, labels: { app: `app-${n % 5}`, team } },
    spec: {
      storageClass: n % 2 === 0 ? 'standard' : 'fast',
      owner: team,
      ...(n % 5 === 0
        ? { imageRef: `registry.invalid/app-${n % 5}@sha256:${(n * 7919).toString(16).padStart(8, '0')}` }
        : { image: `registry.invalid/app-${n % 5}:1.${n % 10}` }),
      // Bronze, the default, left to the schema: the tier rule then reads the defaulted value.
      ...(tier ? { tier } : {}),
      replicasMin: tier === 'gold' ? 2 : 1,
      minReplicas: 1 + (n % 3),
      maxReplicas: 5 + (n % 5),
      size: `${sizeGi}Gi`,
      endpoint: `https://api-${n % 50}.example.com/v1`,
      address: `10.${n % 250}.${(n >> 8) % 250}.${1 + (n % 200)}`,
      network: `10.${n % 250}.0.0/16`,
      version: `1.${n % 12}.${n % 7}`,
      slug: `orders-api-${(n % 9) + 1}`,
      hostname: `db-${n}`,
      codes: n % 2 === 0 ? 'eu,us' : 'eu,us,ap',
      permissions: n % 2 === 0 ? ['read', 'write'] : ['admin', 'read'],
      weights: [10, 20, 30 + (n % 40)],
      ports: [
        { name: 'http', number: 8080, primary: true },
        { name: 'metrics', number: 9090, primary: false },
        ...(changed ? [] : [{ name: 'admin', number: 9443, primary: false }]),
      ],
      labels: { 'app.team': team, 'app.tier': tier ?? 'bronze' },
      backup: { window: '02:00-03:00', retention: `${24 * (1 + (n % 7))}h` },
      surge: n % 2 === 0 ? '25%' : 2,
      startAt: changed ? '2024-04-01T00:00:00Z' : '2024-05-01T10:00:00Z',
      ...(n % 2 === 0 ? { maxUnavailable: 1 } : { minAvailable: '50%' }),
      mode: 'Active',
      timeout: `${(changed ? 45 : 30) + (n % 60)}s`,
      schedule: `${n % 60} 3 * * *`,
      dnsNames: [`app-${n}.example.com`, `app-${n}.${team}.svc`],
      allowedSources: ['10.0.0.0/8', `192.168.${n % 256}.0/24`],
      resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '2', memory: `${2 + (n % 3)}Gi` } },
      mirrors: [
        { name: 'primary', url: `https://mirror-a.example.com/${team}` },
        { name: 'backup', url: `https://mirror-b.example.com/${team}` },
      ],
      maintenance: { start: '01:00', end: `0${3 + (n % 4)}:30` },
      nodeSelector: { 'kubernetes.io/os': 'linux', 'node.example.com/pool': `pool-${n % 4}` },
    },
  };
}
