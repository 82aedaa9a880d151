import { isIP } from 'node:net';
import { ownsCrd, type Contract } from '../contract/contract-definition.ts';
import { convertsByWebhook, resourceName } from './custom-resource-definition.ts';
import { certMountPath, componentLabels, installNames, type Install } from './in-cluster-names.ts';
import { renderKustomization } from './kustomization.ts';
import type { Manifest, ManifestFile } from './manifest.ts';
import type { ManifestOptions } from './manifest-options.ts';
import { certVolumeName, contractArgs, renderNamespace, serverContainerName } from './server-workload.ts';

// The ports the API server is reached on from a pod. The kubernetes Service listens on 443; most network plugins
// see the packet only after it was translated to the API server's own port, 6443 by default (kubeadm), 443 on
// several managed control planes. A policy on one of them alone would cut crdgate off on some clusters.
export const apiServerPorts = [443, 6443] as const;

const overlayComment = (
  install: Install,
) => `crdgate managing its own certificates (\`crdgate serve --manage-certs\`): no cert-manager, no certificate made
by hand. One replica at a time (the one holding the Lease ${installNames(install.name).certLease}) creates a CA and a serving certificate in
the Secret ${installNames(install.name).servingCertSecret}, renews them before they expire (a new CA with an overlap in which both are
trusted), and writes the CA into both webhook configurations and the CRDs' conversion webhooks, repairing them when
re-applied manifests empty them. Every replica follows the Secret and swaps the pair in without a restart; it is
ready only once every caBundle trusts the certificate it serves.
Rendered only when the base carries no caBundle (without --ca-bundle): an applied caBundle would be owned by
kubectl's field manager, and each re-apply would put back the CA that crdgate has since replaced.`;

const insideComment = (install: Install) => `${overlayComment(install)}
The server gets the least RBAC it needs (rbac.yaml), its ServiceAccount token, and egress to the API server.`;

const outsideComment = (install: Install, url: string) => `${overlayComment(install)}
Rendered with --url: crdgate runs outside the cluster, so there is no Deployment to change. Run it on ${url} with
  crdgate ${outsideServeArgs(install, url).join(' ')}
as an identity allowed what rbac.yaml allows (outside-the-cluster.yaml has the ServiceAccount it binds).`;

const secretAndLeaseComment = `Shipped empty, so that crdgate needs no \`create\` verb (RBAC cannot limit create to one name): the leader fills the
Secret and takes the Lease by updating them. Applying this file again (kubectl apply --server-side) keeps what
crdgate wrote: the keys, annotations and holder belong to crdgate's field manager, and an apply removes only fields
that its own manager set before. Deleting the Secret makes crdgate start over with a new CA once this file is applied
again.`;

const rbacComment = `What \`crdgate serve --manage-certs\` calls, and only on its own objects, by name: the Secret and the Lease (read,
follow, write back: no create, which RBAC cannot limit to a name, and no delete); both webhook configurations (read,
follow, patch the caBundles); its contracts' CRDs (read and follow; patch only those that convert by webhook).
Listing and watching by name work because crdgate selects the object with fieldSelector=metadata.name=NAME.`;

const servePatchComment = `The server takes its certificate from the Secret through the API, not from a mounted folder: --manage-certs
instead of --cert-dir, the ServiceAccount token the base withholds (the pod's setting wins over the
ServiceAccount's, so no other pod gets one), no Secret volume (the CA's key stays out of the pod's filesystem).
POD_NAME names the replica in the Lease; POD_NAMESPACE is where the Secret and the Lease live.`;

const egressComment = `crdgate now calls the API server: TCP 443 and 6443 to any address. Any address for the same reason as the
ingress rule in base/15-network-policy.yaml: the API server's address cannot be known in general. Both ports because
the kubernetes Service's 443 is usually translated to the API server's own port (6443 by default) before the policy
sees the packet, and some control planes listen on 443. No DNS: inside the cluster crdgate finds the API server by
KUBERNETES_SERVICE_HOST, an IP address. To tighten it, set \`to:\` to your API server's addresses in an overlay of
your own.`;

const outsideTheClusterComment = `Rendered with --url, the base has nothing in the namespace: this brings the namespace for the Secret and the
Lease, and the ServiceAccount that rbac.yaml binds. Outside the cluster, crdgate runs with whatever kubeconfig it is
given; one with a token of this ServiceAccount (\`kubectl create token\`) limits it to what rbac.yaml allows.`;

/**
 * The self-managed-certs overlay: the base, plus the empty Secret and Lease crdgate fills, the RBAC it needs for
 * them, the webhook configurations and the CRDs, and (inside the cluster) the Deployment switched to
 * `serve --manage-certs` with egress to the API server. Called by URL, the Namespace and the ServiceAccount that the
 * base leaves out instead, so that the overlay applies on its own.
 */
export function renderSelfManagedCertsOverlay(
  dir: string,
  contracts: readonly Contract[],
  options: ManifestOptions,
): ManifestFile[] {
  const inCluster = options.url === undefined;
  const patches = ['serve-manage-certs.yaml', 'egress-to-api-server.yaml'];
  return [
    {
      path: `${dir}/kustomization.yaml`,
      comment: options.url === undefined ? insideComment(options) : outsideComment(options, options.url),
      manifests: [
        renderKustomization('crdgate-self-managed-certs', {
          resources: [
            '../../base',
            ...(inCluster ? [] : ['outside-the-cluster.yaml']),
            'secret-and-lease.yaml',
            'rbac.yaml',
          ],
          ...(inCluster ? { patches: patches.map((path) => ({ path })) } : {}),
        }),
      ],
    },
    ...(inCluster
      ? []
      : [
          {
            path: `${dir}/outside-the-cluster.yaml`,
            comment: outsideTheClusterComment,
            manifests: [renderNamespace(options.namespace), serviceAccount(options)],
          },
        ]),
    { path: `${dir}/secret-and-lease.yaml`, comment: secretAndLeaseComment, manifests: secretAndLease(options) },
    { path: `${dir}/rbac.yaml`, comment: rbacComment, manifests: rbac(contracts, options) },
    ...(inCluster
      ? [
          { path: `${dir}/${patches[0]}`, comment: servePatchComment, manifests: [servePatch(options)] },
          { path: `${dir}/${patches[1]}`, comment: egressComment, manifests: [egressPatch(options)] },
        ]
      : []),
  ];
}

/**
 * How to run crdgate outside the cluster for this overlay: on the port of `url`, with a certificate that names its
 * host as the API server calls it (the Service's names, which the certificate always carries, mean nothing there).
 */
export function outsideServeArgs(install: Install, url: string): string[] {
  const { hostname, port } = new URL(url);
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  return [
    'serve',
    '--manage-certs',
    '--name',
    install.name,
    '--namespace',
    install.namespace,
    isIP(host) !== 0 ? '--cert-ip' : '--cert-dns',
    host,
    '--port',
    port === '' ? '443' : port,
  ];
}

const labels = (install: Install) => componentLabels(install.name, 'webhook');

function serviceAccount(install: Install): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: installNames(install.name).server, namespace: install.namespace, labels: labels(install) },
    automountServiceAccountToken: false,
  };
}

function secretAndLease(install: Install): Manifest[] {
  const names = installNames(install.name);
  const metadata = (name: string) => ({ name, namespace: install.namespace, labels: labels(install) });
  return [
    // Opaque: kubernetes.io/tls would refuse a Secret without tls.crt and tls.key.
    { apiVersion: 'v1', kind: 'Secret', metadata: metadata(names.servingCertSecret), type: 'Opaque' },
    { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: metadata(names.certLease), spec: {} },
  ];
}

const follow = ['get', 'list', 'watch'];

function rbac(contracts: readonly Contract[], install: Install): Manifest[] {
  const names = installNames(install.name);
  const metadata = { name: names.certAccess, labels: labels(install) };
  const subjects = [{ kind: 'ServiceAccount', name: names.server, namespace: install.namespace }];
  const roleRef = (kind: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name: names.certAccess });
  const crds = (which: readonly Contract[]) => which.map((contract) => resourceName(contract.identity));
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { ...metadata, namespace: install.namespace },
      rules: [
        {
          apiGroups: [''],
          resources: ['secrets'],
          resourceNames: [names.servingCertSecret],
          verbs: [...follow, 'update'],
        },
        {
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          resourceNames: [names.certLease],
          verbs: [...follow, 'update'],
        },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { ...metadata, namespace: install.namespace },
      roleRef: roleRef('Role'),
      subjects,
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata,
      rules: [
        {
          apiGroups: ['admissionregistration.k8s.io'],
          resources: ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations'],
          resourceNames: [names.webhookConfiguration],
          verbs: [...follow, 'patch'],
        },
        // Only the CRDs crdgate owns: one its owner installs carries the owner's caBundle, never crdgate's.
        ...namedRule('apiextensions.k8s.io', 'customresourcedefinitions', crds(contracts.filter(ownsCrd)), follow),
        ...namedRule('apiextensions.k8s.io', 'customresourcedefinitions', crds(contracts.filter(convertsByWebhook)), [
          'patch',
        ]),
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata,
      roleRef: roleRef('ClusterRole'),
      subjects,
    },
  ];
}

/** A rule on these objects only, or none: RBAC reads an empty resourceNames as every object of the resource. */
function namedRule(apiGroup: string, resource: string, resourceNames: string[], verbs: string[]) {
  return resourceNames.length === 0 ? [] : [{ apiGroups: [apiGroup], resources: [resource], resourceNames, verbs }];
}

function servePatch(options: ManifestOptions): Manifest {
  const names = installNames(options.name);
  const fromPod = (fieldPath: string) => ({ valueFrom: { fieldRef: { fieldPath } } });
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: names.server, namespace: options.namespace },
    spec: {
      template: {
        spec: {
          automountServiceAccountToken: true,
          containers: [
            {
              name: serverContainerName,
              // A list of strings is replaced whole by a strategic merge: these are all the arguments.
              args: [
                'serve',
                '--manage-certs',
                '--name',
                options.name,
                '--namespace',
                options.namespace,
                ...contractArgs(options.contracts ?? []),
              ],
              // Merged by name into the base's env (NODE_OPTIONS stays).
              env: [
                { name: 'POD_NAME', ...fromPod('metadata.name') },
                { name: 'POD_NAMESPACE', ...fromPod('metadata.namespace') },
              ],
              // volumeMounts are merged by mountPath, volumes by name.
              volumeMounts: [{ mountPath: certMountPath, $patch: 'delete' }],
            },
          ],
          volumes: [{ name: certVolumeName, $patch: 'delete' }],
        },
      },
    },
  };
}

function egressPatch(install: Install): Manifest {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: installNames(install.name).server, namespace: install.namespace },
    // A strategic merge replaces the egress list whole (it has no merge key): the base's is empty.
    spec: { egress: [{ ports: apiServerPorts.map((port) => ({ port, protocol: 'TCP' })) }] },
  };
}
