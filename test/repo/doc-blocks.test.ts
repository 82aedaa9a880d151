import { access, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { geoDatabaseContract } from '../../src/contracts/geodatabase/index.ts';
import { contractTester } from '../../src/testing.ts';

// Every fenced block of the README and of docs/ is accounted for: run by a test (as written, with at most the
// test's own paths, names or ports in place of the reader's), the output a test compares, a block that shows
// something nobody runs (a layout, a message, a fragment), or a block whose first line says why no test runs it.
// A new block fails here until it is one of these.

const repo = fileURLToPath(new URL('../../', import.meta.url));
/** The first line of a block no test runs, followed by the reason. */
const notRunMarker = "# not run by crdgate's tests: ";

type Account = { run: string[] } | { output: string } | { notRun: true } | { shows: string };

const contractGuideTests = { run: ['test/repo/contract-guide.test.ts', 'test/e2e/package.e2e.test.ts'] };
const operatorGuideTest = 'test/repo/operator-guide.test.ts';
const operatorGuideDevTest = 'test/e2e/operator-guide-dev.e2e.test.ts';
const cluster = { notRun: true } as const;

/** Per page, each block by the start of its first line (after a not-run marker). */
const accounts: Record<string, [string, Account][]> = {
  'README.md': [
    [
      'npm ci && npm start',
      { run: ['test/repo/readme-commands.test.ts', 'src/api-server-engine/build-engine.test.ts'] },
    ],
    ['curl -s --cacert certs/ca.crt', { run: ['test/repo/readme-commands.test.ts'] }],
    ['{"apiVersion":"admission.k8s.io/v1"', { output: 'test/repo/readme-commands.test.ts' }],
    [
      'npm run --silent crdgate -- check -f test/fixtures/check/tree/apps/geo/databases.yaml',
      { run: ['test/repo/readme-commands.test.ts'] },
    ],
    [
      'test/fixtures/check/tree/apps/geo/databases.yaml:2 (document 1)',
      { output: 'test/repo/readme-commands.test.ts' },
    ],
    ['npx crdgate init ../queue --group', { run: ['test/e2e/init.e2e.test.ts', 'test/e2e/dev.e2e.test.ts'] }],
    ['crdgate check -f deploy/ --crd charts/', cluster],
  ],
  'docs/check.md': [
    ['git worktree add ../base origin/main', cluster],
    [
      'npm run --silent crdgate -- check -f test/fixtures/check/crd-revision/new',
      { run: ['test/repo/readme-commands.test.ts'] },
    ],
    [
      'test/fixtures/check/crd-revision/new/queues.yaml:1 (document 1)',
      { output: 'test/repo/readme-commands.test.ts' },
    ],
    ['# What this team accepts', { run: ['src/commands/check-crd-revision.test.ts'] }],
    ['# The rules alone decide', { run: ['src/commands/check-crd-revision.test.ts'] }],
    [
      'npm run --silent crdgate -- check --contract test/fixtures/check/contract-revision/new',
      { run: ['test/repo/readme-commands.test.ts'] },
    ],
    ['contract test/fixtures/check/contract-revision/new/bucket.ts', { output: 'test/repo/readme-commands.test.ts' }],
    [
      'npm run --silent crdgate -- check -f test/fixtures/check/stored-objects/new',
      { run: ['test/repo/readme-commands.test.ts'] },
    ],
    [
      'test/fixtures/check/stored-objects/new/mailboxes.yaml:1 (document 1)',
      { output: 'test/repo/readme-commands.test.ts' },
    ],
  ],
  'docs/cli.md': [],
  'docs/crd-gate.md': [
    ['crdgate manifests --crd-gate widgets.example.com', cluster],
    [
      'admission webhook "crd-gate.crdgate.dev" denied the request',
      { shows: "the gate's refusal as kubectl prints it (test/e2e/crd-gate.e2e.test.ts asserts its parts)" },
    ],
    ['metadata:', cluster],
    ['crdgate manifests --crd-reads widgets.example.com', cluster],
  ],
  'docs/contracts.md': [
    ['npx crdgate init queue --group', { run: ['test/e2e/init.e2e.test.ts', 'src/cli.test.ts'] }],
    ['// bucket-contract.ts', contractGuideTests],
    ['// bucket-contract.check.ts', contractGuideTests],
    ['// queue-from-crd.ts', contractGuideTests],
    ['// operator-contract.ts', contractGuideTests],
    ['// bucket-rules.ts', contractGuideTests],
    [
      'crdgate manifests: contract geodatabases.geo.example.com: kube-apiserver would refuse',
      { shows: 'the one line a refused CEL rule stops crdgate with' },
    ],
    ['// bucket-defaults.ts', contractGuideTests],
    ['// bucket-machine.ts', contractGuideTests],
    ['// pool-state.ts', contractGuideTests],
    ['// pool-conditions.ts', contractGuideTests],
    ['// replication-comparison.ts', contractGuideTests],
    ['// bucket-unclassified.ts', contractGuideTests],
    ['// bucket-override-only.ts', contractGuideTests],
    ['// volumes-machine.ts', contractGuideTests],
    ['// bucket-versions.ts', contractGuideTests],
    ['// bucket-reads.ts', contractGuideTests],
    [
      'const v1alpha1: SpokeConversion = {',
      { shows: 'a fragment: the shape of hubToSpokePaths in a conversion written by hand' },
    ],
    ['// A fragment of a mapping', { shows: 'a fragment of a mapping, its first line says so' }],
    [
      "deletionRules: [fieldDeletionRule({ field: 'spec.deletionProtection', equals: true })],",
      { shows: 'a fragment: the option (test/e2e/field-deletion-protection.e2e.test.ts uses it on DbCluster)' },
    ],
    [
      'spec.tls (v1 field; no v1alpha1 equivalent): the stored object holds',
      { shows: "a denial of an old client's write (test/e2e/older-version-writes.e2e.test.ts asserts it)" },
    ],
    ['// quantities.ts', contractGuideTests],
  ],
  'docs/conversion.md': [['npm run --silent crdgate -- convert -f', { run: ['test/repo/readme-commands.test.ts'] }]],
  'docs/deploying.md': [
    ['crdgate manifests --format helm --contract ./queue-contract.ts', cluster],
    ['apiVersion: argoproj.io/v1alpha1', cluster],
    ['crdgate manifests --format olm --contract ./queue-contract.ts', cluster],
    ['apiVersion: olm.operatorframework.io/v1', cluster],
  ],
  'docs/development.md': [
    ['src/', { shows: "the repository's layout" }],
    ['npm run --silent layers', { run: ['test/repo/layering.test.ts'] }],
    ['npm run test:tools', { run: ['test/tools/suite-tools.test.ts'] }],
    ['npm run test:fresh', { notRun: true }],
  ],
  'docs/geodatabase.md': [['apiVersion: geo.example.com/v1', { run: ['test/repo/doc-blocks.test.ts'] }]],
  'docs/guarding-an-operator.md': [
    ['# crds/database-crd.yaml', { run: [operatorGuideTest, operatorGuideDevTest] }],
    ['npx crdgate init db-guard --from-crd', { run: [operatorGuideTest] }],
    ['// src/contract.ts', { run: [operatorGuideTest, operatorGuideDevTest] }],
    ['// src/contract.check.ts', { run: [operatorGuideTest] }],
    ['npx crdgate dev --contract ./src/contract.ts', { run: [operatorGuideDevTest] }],
    ['crdgate dev: ready in', { output: operatorGuideDevTest }],
    ['kubectl create namespace shop', { run: [operatorGuideDevTest] }],
    ['# main/shop/orders.yaml', { run: [operatorGuideTest] }],
    ['# shop/orders.yaml', { run: [operatorGuideTest] }],
    ['npx crdgate check -f shop/', { run: [operatorGuideTest] }],
    ['shop/orders.yaml:2 (document 1)', { output: operatorGuideTest }],
    ['npx crdgate manifests --contract ./src/contract.ts', { run: [operatorGuideTest] }],
    ['policy floor for Database:', { output: operatorGuideTest }],
    ['npx crdgate fsa --contract ./src/contract.ts --coverage', { run: [operatorGuideTest] }],
    ['Database: what the ValidatingAdmissionPolicy enforces', { output: operatorGuideTest }],
    [
      'conditionStates: [',
      { shows: "a fragment: the machine's state from the Ready condition, for an operator that writes no phase" },
    ],
    ['phases: {', { shows: "a fragment: CloudNativePG's phase sentences, to check against the release you run" }],
  ],
  'docs/live-crd.md': [
    [
      '{"level":40,"crd":"dbclusters.dbops.example.com"',
      { shows: "a log line of crdgate serve's (test/e2e/owner-crd-drift.e2e.test.ts reads it)" },
    ],
    ['kind: ClusterRole', { shows: 'an excerpt of what crdgate manifests renders (src/render tests render it)' }],
    [
      'warning: --crd crds/dbops-0.4.yaml:1 (document 1)',
      { shows: "a warning of crdgate check's (src/commands/check-crd.test.ts asserts it)" },
    ],
  ],
  'docs/local-loop.md': [
    ['npx crdgate dev --contract ./src/contract.ts', { run: ['test/e2e/dev.e2e.test.ts', operatorGuideDevTest] }],
    ['crdgate dev: ready in', { output: operatorGuideDevTest }],
    ['// src/environment.check.ts', { run: ['test/e2e/init.e2e.test.ts'] }],
  ],
  'docs/migration.md': [
    [
      'dry run: every object would be written in v1',
      { shows: "a dry run's summary (test/e2e/migrate-storage-rules.e2e.test.ts asserts its parts)" },
    ],
    [
      'crdgate check --contract ./src/contract.ts --old-contract ../base/src/contract.ts --from-cluster',
      { run: ['test/e2e/retire-version.e2e.test.ts'] },
    ],
    ['error storedVersionRemoval (v1beta1)', { shows: 'what the check prints before the migration' }],
    ['warning unservedVersionRemoval (v1beta1)', { shows: 'what the check prints after it' }],
    ['crdgate manifests --contract ./src/contract.ts --image registry.example/geo-crdgate:1.5.0', cluster],
    ['kubectl patch crd geodatabases.geo.example.com --type=json', { run: ['test/e2e/retire-version.e2e.test.ts'] }],
  ],
  'docs/operations.md': [
    ['manifests/', { shows: 'the layout of the rendered tree' }],
    ['crdgate certs --out pki --dns crdgate.crdgate-system.svc          # ca.crt', cluster],
    ['kubectl apply --server-side -k manifests/overlays/cert-manager', cluster],
    ['kubectl apply --server-side -k manifests/overlays/self-managed-certs', cluster],
    ['kubectl -n crdgate-system create token crdgate', cluster],
    ['kubectl apply --server-side -k manifests/overlays/monitoring', cluster],
    [
      'admission webhook "scale.validate.widgets.example.com" denied the request',
      { shows: 'what kubectl prints for a scale crdgate cannot judge' },
    ],
    ['crdgate certs --out pki-geo --dns geo.team-a.svc', cluster],
    ['crdgate manifests --format helm --contract ./queue-contract.ts', cluster],
    ['kubectl -n crdgate-system annotate secret crdgate-serving-cert', cluster],
    ['crdgate certs --out pki --dns crdgate.crdgate-system.svc           # keeps', cluster],
    [
      'Error from server (InternalError): Internal error occurred: failed calling webhook',
      { shows: 'what kubectl prints while crdgate is down' },
    ],
    ['kubectl -n crdgate-system get deployment,pods,endpointslices', cluster],
    [
      'geodatabases.geo.example.com "db1" is forbidden: ValidatingAdmissionPolicy',
      { shows: 'what kubectl prints when the policy floor refuses' },
    ],
    [
      'Warning: spec.postgres.postgis: PostGIS 3.6 is not supported',
      { shows: 'a warning kubectl prints for a tolerated value' },
    ],
    ['kubectl apply --server-side -k manifests/overlays/policy-floor', cluster],
  ],
  'docs/own-contracts.md': [
    ['git clone CRDGATE_REPOSITORY_URL crdgate', cluster],
    ['npx crdgate init ../queue --group', { run: ['test/e2e/init.e2e.test.ts'] }],
    ['npx crdgate certs --out pki --dns crdgate.crdgate-system.svc', cluster],
  ],
  'docs/server.md': [],
  'docs/transitions.md': [['stateDiagram-v2', { run: ['src/commands/fsa.test.ts'] }]],
};

interface Block {
  page: string;
  /** The block's first line, trimmed, after a not-run marker. */
  first: string;
  notRunReason?: string;
}

async function blocksOf(page: string): Promise<Block[]> {
  const text = await readFile(join(repo, page), 'utf8');
  return [...text.matchAll(/^[ \t]*```\w*\n([\s\S]*?)^[ \t]*```[ \t]*$/gm)].map(([, body]) => {
    const lines = body!.split('\n').map((line) => line.trim());
    const marked = lines[0]!.startsWith(notRunMarker);
    return {
      page,
      first: lines[marked ? 1 : 0]!,
      ...(marked ? { notRunReason: lines[0]!.slice(notRunMarker.length) } : {}),
    };
  });
}

const pages = [
  'README.md',
  ...(await readdir(join(repo, 'docs')))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

describe("the README's and docs/'s code blocks", () => {
  it('has an account for every page', () => {
    expect(Object.keys(accounts).sort()).toEqual([...pages].sort());
  });

  it.each(pages)(
    '%s: every block is run by a test, shown output, shows nothing to run, or says why no test runs it',
    async (page) => {
      const blocks = await blocksOf(page);
      const entries = accounts[page] ?? [];
      const accountOf = (block: Block) => entries.filter(([start]) => block.first.startsWith(start));
      expect(
        blocks.filter((block) => accountOf(block).length !== 1).map((block) => block.first),
        'blocks with no account, or more than one',
      ).toEqual([]);
      expect(
        entries.filter(([start]) => !blocks.some((block) => block.first.startsWith(start))).map(([start]) => start),
        'accounts of no block',
      ).toEqual([]);
      for (const block of blocks) {
        const [[, account]] = accountOf(block) as [[string, Account]];
        // A block no test runs says so, and why, to its reader; a block a test runs does not.
        expect({ block: block.first, marked: block.notRunReason !== undefined }).toEqual({
          block: block.first,
          marked: 'notRun' in account,
        });
        if ('notRun' in account) expect(block.notRunReason!.length, block.first).toBeGreaterThan(10);
        for (const test of 'run' in account ? account.run : 'output' in account ? [account.output] : [])
          await access(join(repo, test));
      }
    },
  );

  it("runs docs/geodatabase.md's example object: the built-in contract allows it as it stands", async () => {
    const page = await readFile(join(repo, 'docs/geodatabase.md'), 'utf8');
    const example = parse(/^```yaml\n([\s\S]*?)^```$/m.exec(page)![1]!) as Record<string, unknown>;
    const checked = contractTester(geoDatabaseContract()).check({
      ...example,
      metadata: { ...(example['metadata'] as object), namespace: 'maps' },
    });
    expect({ allowed: checked.allowed, message: checked.message }).toEqual({ allowed: true, message: undefined });
    expect(checked.defaults).toEqual([expect.objectContaining({ field: 'metadata.labels' })]);
  });
});
