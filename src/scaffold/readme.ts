import { contractPath, imageName } from './project-files.ts';
import type { ScaffoldNames } from './scaffold-names.ts';

export function readme(n: ScaffoldNames): string {
  const resource = `${n.plural}.${n.group}`;
  return `# ${n.kind} webhooks

Admission (validation, defaults, allowed changes per phase) and conversion webhooks for \`${n.kind}\`
(\`${resource}\`), served by [crdgate](https://www.npmjs.com/package/crdgate). Everything crdgate knows about the
kind is in one contract, \`${contractPath}\`; the CRD and the webhook configurations are rendered from it.

## Develop

\`\`\`sh
npm ci
npm test                                   # typecheck, then the contract's tests (src/contract.test.ts)
npm run check -- -f examples/${n.singular}.yaml --defaulted yaml   # the decision, and the object with its defaults
npm run fsa                                # the transition machine, as a Mermaid diagram
npm start                                  # serve on https://127.0.0.1:8443 (development certificates in certs/)
\`\`\`

Write the contract in \`${contractPath}\` (crdgate's contract guide, \`node_modules/crdgate/docs/contracts.md\`,
describes every part of it) and test it with \`crdgate/testing\`, which decides exactly as the server does,
without one.

## Deploy

1. Build and push the image (the \`Dockerfile\` runs crdgate with this contract):

   \`\`\`sh
   docker build -t REGISTRY/${imageName(n)} . && docker push REGISTRY/${imageName(n)}
   \`\`\`

   Its crdgate dependency must be fetchable by the build: a registry version or a git URL.
2. Make the serving certificate for the in-cluster Service and store it as a Secret:

   \`\`\`sh
   npx crdgate certs --out pki --dns crdgate.crdgate-system.svc
   kubectl create namespace crdgate-system
   kubectl -n crdgate-system create secret tls crdgate-serving-cert --cert pki/tls.crt --key pki/tls.key
   \`\`\`
3. Render and apply, from this folder (the Deployment names the contract by its path from here, which is its
   path in the image too):

   \`\`\`sh
   npx crdgate manifests --contract ${contractPath} --image REGISTRY/${imageName(n)} --ca-bundle pki/ca.crt --out manifests
   kubectl apply --server-side -k manifests
   \`\`\`

   \`manifests/migration/\` holds the storage-version migration Job: apply it when a new version becomes the
   storage version.
`;
}
