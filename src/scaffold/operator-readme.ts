import { crdProjectTestSection, type CrdScaffold } from './from-crd-sources.ts';
import { contractPath, imageName, type PinnedVersions } from './project-files.ts';

// The README of a project that guards an operator's kind (`crdgate init --from-crd FILE --crd-owner external`):
// crdgate's webhooks in front of a CRD that the operator's chart installs, and nothing of the CRD's own.

export function operatorReadme(s: CrdScaffold, versions: PinnedVersions): string {
  const { names: n, shape } = s;
  const resource = `${n.plural}.${n.group}`;
  const image = `REGISTRY/${imageName(n)}`;
  const crdFolder = s.crdFile.split('/')[0]!;
  return `# ${n.kind} guard

crdgate's webhooks in front of \`${n.kind}\` (\`${resource}\`, ${shape.scope === 'Namespaced' ? 'namespaced' : 'cluster-scoped'}), a kind whose CRD an operator owns: its
chart (or OLM) installs the CRD, with the operator's own conversions. crdgate judges every write of the kind (the
schema, rules across fields, and the spec changes the operator can carry out in each of its phases) without taking
the CRD over. The contract, \`${contractPath}\`, reads a copy of the operator's CRD, \`${s.crdFile}\`, with
\`fromCrd(crd, { crdOwner: 'external' })\`. What that means:

- crdgate renders **no CRD, no conversion and no storage-version migration** for the kind, and injects no caBundle
  into the operator's CRD: only its own webhooks, called in the hub version, \`${shape.hub}\`, after the operator's
  conversion (\`matchPolicy: Equivalent\`).
- \`npm run dev\` and the end-to-end test apply the copy in \`${crdFolder}/\` in the operator's place (no operator runs
  there: you write the status the operator would write, with \`kubectl patch --subresource=status\`).
- The copy must be the CRD of the operator release you run: before the operator is upgraded, copy the new release's
  CRD into \`${crdFolder}/\`, rerun the tests and roll out the image (a field the new release adds is unknown to crdgate
  until its copy has it).

## 1. Add crdgate's rules

\`${contractPath}\` marks TODO where they go: invariants (rules across fields) and the FSA: how to
read the operator's state (its phase strings through \`phases\`, or its conditions through \`conditionStates\`) and which spec
changes it can carry out in each state. crdgate's guide for this, \`node_modules/crdgate/docs/guarding-an-operator.md\`,
walks through it for a database operator; \`node_modules/crdgate/docs/contracts.md\` describes every part. Once there
is a machine, \`npm run fsa\` draws it and \`npm run fsa -- --coverage\` says what the policy floor enforces of it.

${crdProjectTestSection(s)}
## 3. Try it against a real API server

\`\`\`sh
npm run dev        # crdgate dev --contract ${contractPath}
\`\`\`

It starts a local etcd and kube-apiserver, applies the operator's CRD from \`${s.crdFile}\` and crdgate's webhooks,
and prints the \`export KUBECONFIG=...\` line and the kubectl to use. It reloads when \`src/\` changes.

## 4. Build the image

\`\`\`sh
docker build -t ${image} . && docker push ${image}
\`\`\`

The image carries \`src/\` and \`${crdFolder}/\` (the contract reads the CRD when it is made)${
    versions.crdgateTarball === undefined
      ? '; its crdgate dependency must be one the build can fetch: a registry version or a git URL.'
      : `; crdgate comes from \`${versions.crdgateTarball}\` (it is not published to a registry yet), so keep \`vendor/\` in the repository.`
  }

## 5. Deploy, next to the operator

1. **The operator first** (its Helm chart or OLM): until its CRD exists, crdgate's webhooks match nothing, and until
   its conversion webhook answers, a request in another version fails before it reaches crdgate.
2. **crdgate**, rendered from this folder (the Deployment names the contract by its path from here, which is its
   path in the image too) and applied with one of the certificate overlays, which give the webhooks their caBundle:

\`\`\`sh
npx crdgate manifests --contract ${contractPath} --image ${image} --out manifests
kubectl apply --server-side -k manifests/overlays/cert-manager     # where cert-manager runs; else manifests/overlays/self-managed-certs
\`\`\`

Or with Helm, beside the operator's release: \`npm run chart\`, then \`helm install crdgate chart --namespace
crdgate-system --create-namespace\` (its \`values.yaml\` lists every setting). Or through OLM: \`npm run bundle\`
writes a bundle without CRDs (crdgate's \`docs/deploying.md\`, "Installing through OLM").

The tree holds crdgate's side only: no CRD, no \`migration/\`. crdgate's \`docs/guarding-an-operator.md\` (the install
next to the operator's Helm release, and the policy floor) and \`docs/operations.md\` go through it.
`;
}
