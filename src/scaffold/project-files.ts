import { imageNodeOptions } from '../render/server-workload.ts';
import type { ScaffoldNames } from './scaffold-names.ts';
import { spokeVersions, type ScaffoldShape } from './scaffold-shape.ts';

/** The versions a scaffolded project pins: crdgate's own, so that its installs are reproducible. */
export interface PinnedVersions {
  /** What the project's dependency on crdgate says: a version range, a git URL or a tarball. */
  crdgate: string;
  /**
   * The tarball inside the project that {@link crdgate} points at (`vendor/crdgate-0.1.0.tgz`), when crdgate is
   * vendored: the image's build must copy it before it installs.
   */
  crdgateTarball?: string;
  node: string;
  typescript: string;
  typesNode: string;
  fastCheck: string;
}

export const contractPath = './src/contract.ts';

export function imageName(n: ScaffoldNames): string {
  return `${n.project}:0.1.0`;
}

/** How a project's files differ when made from a CRD (`init --from-crd`): the folder its CRD is in. */
export interface FromCrdLayout {
  crdFolder: string;
}

export function packageJson(
  n: ScaffoldNames,
  shape: ScaffoldShape,
  versions: PinnedVersions,
  { ownsCrd = true }: { ownsCrd?: boolean } = {},
): string {
  const contract = `--contract ${contractPath}`;
  // OLM takes examples only of the kinds a bundle's CRDs define: an operator's kind has none in its guard's bundle.
  const example = ownsCrd ? ` --example examples/${n.singular}.yaml` : '';
  const project = {
    name: n.project,
    version: '0.1.0',
    private: true,
    description: `Admission and conversion webhooks for ${n.kind}.${n.group}, served by crdgate`,
    type: 'module',
    engines: { node: `>=${versions.node.split('.')[0]}` },
    scripts: {
      test: "tsc --noEmit && node --test 'src/**/*.test.ts'",
      check: `crdgate check ${contract}`,
      // A contract made from a CRD has an FSA once one is written; until then fsa says there is none.
      fsa: `crdgate fsa ${contract}`,
      start: `crdgate serve ${contract}`,
      dev: `crdgate dev ${contract}`,
      // Several versions: an object shown in another of them (npm run convert -- -f FILE --to GROUP/VERSION).
      ...(spokeVersions(shape).length > 0 ? { convert: `crdgate convert ${contract}` } : {}),
      manifests: `crdgate manifests ${contract} --image ${imageName(n)}`,
      // The same install as a Helm chart in chart/, for a team that installs with Helm, Argo CD or Flux.
      chart: `crdgate manifests ${contract} --image ${imageName(n)} --format helm --out chart`,
      // The same install as an OLM bundle in bundle/ (raise --version, and --replaces the one before, per release).
      bundle: `crdgate manifests ${contract} --image ${imageName(n)} --format olm --package ${n.project} --version 0.1.0${example} --out bundle`,
    },
    dependencies: { crdgate: versions.crdgate },
    // `node` runs the scripts on the Node version crdgate needs, whatever Node the machine has. The conversion test
    // (several versions only) generates objects with fast-check.
    devDependencies: {
      '@types/node': versions.typesNode,
      ...(spokeVersions(shape).length > 0 ? { 'fast-check': versions.fastCheck } : {}),
      node: versions.node,
      typescript: versions.typescript,
    },
    allowScripts: { node: true },
  };
  return `${JSON.stringify(project, null, 2)}\n`;
}

export const tsconfigJson = `${JSON.stringify(
  {
    compilerOptions: {
      target: 'es2024',
      lib: ['es2024'],
      module: 'nodenext',
      moduleResolution: 'nodenext',
      types: ['node'],
      strict: true,
      noUncheckedIndexedAccess: true,
      // Node runs the TypeScript files as they are, by stripping the types: only erasable syntax.
      erasableSyntaxOnly: true,
      verbatimModuleSyntax: true,
      allowImportingTsExtensions: true,
      noEmit: true,
      skipLibCheck: true,
    },
    include: ['src'],
  },
  null,
  2,
)}\n`;

export const gitignore = ['node_modules/', 'certs/', 'pki/', 'manifests/', 'chart/', 'bundle/', ''].join('\n');

export const dockerignore = ['node_modules', 'certs', 'pki', 'manifests', 'chart', 'bundle', '.git', ''].join('\n');

export function dockerfile(n: ScaffoldNames, versions: PinnedVersions, fromCrd?: FromCrdLayout): string {
  return `# The image that serves this project's contract: crdgate and src/, on the Node version crdgate needs.
#   docker build -t ${imageName(n)} .
# \`npm run manifests\` renders a Deployment that runs it as
#   serve --cert-dir /etc/crdgate/certs --contract ${contractPath}
# from /app, so the contract's path is the same inside the image as in this folder.
FROM node:${versions.node}-bookworm-slim
ENV NODE_ENV=production
# Caps V8's young generation, as crdgate's rendered Deployment does, instead of sizing it for the node (see crdgate's
# docs/operations.md). Only options Node accepts in NODE_OPTIONS: others make it refuse to start.
ENV NODE_OPTIONS="${imageNodeOptions}"
WORKDIR /app
COPY package.json package-lock.json ./
${
  versions.crdgateTarball === undefined
    ? `# The crdgate dependency must be one the build can fetch (a registry version or a git URL), not a file outside
# this folder.`
    : `# crdgate itself comes from the project's vendor/ folder, so the build needs no registry that has it.
COPY vendor ./vendor`
}
# Production dependencies only: crdgate and what it needs.
RUN npm ci --omit=dev --no-audit --no-fund
COPY src ./src
${fromCrd ? `# The contract reads its CRD from here when it is made.\nCOPY ${fromCrd.crdFolder} ./${fromCrd.crdFolder}\n` : ''}# The image's \`node\` user, by number: Kubernetes can only check runAsNonRoot against a numeric user.
USER 1000:1000
EXPOSE 8443
ENTRYPOINT ["node", "node_modules/crdgate/dist/bin.js"]
CMD ["serve", "--cert-dir", "/etc/crdgate/certs", "--contract", "${contractPath}"]
`;
}
