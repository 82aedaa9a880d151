import { requireE2eVariable } from './e2e-test-source.ts';
import { sizeField, spokeSizeField } from './placeholder-fields.ts';
import { contractPath, imageName, type PinnedVersions } from './project-files.ts';
import type { ScaffoldNames } from './scaffold-names.ts';
import { spokeVersions, type ScaffoldShape } from './scaffold-shape.ts';

export function readme(n: ScaffoldNames, shape: ScaffoldShape, versions: PinnedVersions): string {
  const resource = `${n.plural}.${n.group}`;
  const spokes = spokeVersions(shape);
  const image = `REGISTRY/${imageName(n)}`;
  const versionsLine =
    spokes.length === 0
      ? `one version, \`${shape.hub}\``
      : `the versions ${shape.versions.map((v) => `\`${v}\``).join(', ')}, with \`${shape.hub}\` as the hub (the version the
rules are written against${shape.storage === shape.hub ? ', and the one stored)' : `), stored in \`${shape.storage}\` (see Storage below)`}`;
  return `# ${n.kind} webhooks

Admission (validation, defaults, allowed changes per phase) and conversion webhooks for \`${n.kind}\`
(\`${resource}\`, ${shape.scope === 'Namespaced' ? 'namespaced' : 'cluster-scoped'}), served by crdgate. Everything crdgate knows about the kind
is in one contract, \`${contractPath}\`, for ${versionsLine}. The CRD and the webhook configurations are
rendered from it.

## 1. Edit the contract

\`${contractPath}\` starts with three placeholder fields, \`replicas\`, \`${sizeField}\` and \`mode\`, marked TODO,
and every part of a contract working on them: the schema, a default, an invariant (a rule across fields) and the
FSA (which spec changes the operator can carry out in which phase).${
    spokes.length === 0
      ? ''
      : ` Each version other than the hub
has a file in \`src/versions/\`: its schema and how its spec maps to the hub's (the placeholder renames \`${sizeField}\`
to \`${spokeSizeField}\`).`
  } Replace them with your kind's own fields and rules; crdgate's contract guide,
\`node_modules/crdgate/docs/contracts.md\`, describes every part.

## 2. Test it

\`\`\`sh
npm ci
npm test
\`\`\`

npm scripts run on the Node 24 this project pins (its \`node\` dev dependency), whatever Node the machine has; to run
one file yourself, \`npx node --test src/contract.test.ts\` (a plain \`node\` older than 22 cannot run TypeScript).
\`npm test\` typechecks, then runs every \`src/**/*.test.ts\`:

- \`src/contract.test.ts\`: each rule decided as the server decides it, with \`crdgate/testing\`, without a server;${
    spokes.length === 0
      ? ''
      : `
- \`src/conversion.test.ts\`: every conversion round trip exact on generated objects (fast-check);`
  }
- \`src/contract.e2e.test.ts\`: the contract served by crdgate in front of a real kube-apiserver and etcd on
  127.0.0.1. They come from \`$KUBEBUILDER_ASSETS\` or are built with Go the first time (about five minutes, then
  cached); where neither is possible the test is skipped and says why. Set \`${requireE2eVariable}=1\` in CI to make that
  a failure.

Also: \`npm run check -- -f examples/${n.singular}.yaml --defaulted yaml\` (the decision on one object, and the object
with its defaults)${
    spokes.length === 0
      ? ' and'
      : `, \`npm run convert -- -f examples/${n.singular}.yaml --to ${n.group}/${spokes[0]}\` (the object as the API server
serves it in another version) and`
  } \`npm run fsa\` (the FSA as a Mermaid diagram).

## 3. Try it against a real API server

\`\`\`sh
npm run dev        # crdgate dev --contract ${contractPath}
\`\`\`

It starts a local etcd and kube-apiserver, serves the contract, applies the CRD and the webhook configurations,
and prints the \`export KUBECONFIG=...\` line and the kubectl to use. Then
\`kubectl apply -f examples/${n.singular}.yaml\` and \`kubectl get ${n.plural} -o yaml\` go through your webhooks. It reloads
when the contract changes; Ctrl-C stops everything.

## 4. Build the image

\`\`\`sh
docker build -t ${image} . && docker push ${image}
\`\`\`

The \`Dockerfile\` installs the production dependencies and runs crdgate with this contract.${
    versions.crdgateTarball === undefined
      ? ' Its crdgate dependency must be one the build can fetch: a registry version or a git URL.'
      : `
crdgate comes from \`${versions.crdgateTarball}\` (it is not published to a registry yet), so keep \`vendor/\` in the
repository: the image and \`npm ci\` need nothing else to install it.`
  }

## 5. Deploy

Make the serving certificate for the in-cluster Service and store it as a Secret (\`ca.crt\` is for the
monitoring overlay's ServiceMonitor), then render the manifests and
apply them with kustomize, from this folder (the Deployment names the contract by its path from here, which is
its path in the image too):

\`\`\`sh
npx crdgate certs --out pki --dns crdgate.crdgate-system.svc
kubectl create namespace crdgate-system
kubectl -n crdgate-system create secret generic crdgate-serving-cert --type kubernetes.io/tls \\
  --from-file=tls.crt=pki/tls.crt --from-file=tls.key=pki/tls.key --from-file=ca.crt=pki/ca.crt
npx crdgate manifests --contract ${contractPath} --image ${image} --ca-bundle pki/ca.crt --out manifests
kubectl apply --server-side -k manifests
\`\`\`

\`manifests/migration/\` holds the storage-version migration Job: apply it when a new version becomes the
storage version.
${
  shape.storage === shape.hub
    ? ''
    : `
**Storage**: objects are stored in \`${shape.storage}\`, as the kind was before this project (init --storage): the
first install adds the other versions without moving a stored object. To store in the hub, \`${shape.hub}\`, follow
the runbook in \`node_modules/crdgate/docs/migration.md\` ("Runbook: changing the storage version") from its step 2:
set \`storage: true\` on \`${shape.hub}\` (and false on \`${shape.storage}\`) in \`${contractPath}\`, apply, then run the
migration Job.
`
}
With Helm instead (crdgate then makes, rotates and injects its own certificates; no \`pki/\` needed):

\`\`\`sh
npm run chart
helm install crdgate chart --namespace crdgate-system --create-namespace
\`\`\`

\`chart/values.yaml\` lists every setting (certificates from cert-manager or a Secret of yours, replicas, the
webhooks' failurePolicy, the migration Jobs as an upgrade hook); crdgate's \`docs/deploying.md\` has the rest.

For the Operator Lifecycle Manager: \`npm run bundle\` writes a registry+v1 bundle in \`bundle/\` (OLM makes the
certificates; what a bundle cannot carry is printed); crdgate's \`docs/deploying.md\` ("Installing through OLM") has
the catalog and the upgrades.
`;
}
