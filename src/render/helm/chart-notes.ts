import { installNames } from '../in-cluster-names.ts';

/** What the chart renders that its notes speak of. */
export interface ChartNoteParts {
  /** Some contract's CRD is crdgate's, so the chart renders it (`crds` in the values). */
  ownedCrds: boolean;
  /** Some contract has defaults, so there is a mutating webhook configuration. */
  mutatingWebhooks: boolean;
}

/**
 * NOTES.txt: what helm prints after an install or upgrade, how to check that crdgate is serving. It names only what
 * the chart installs: nothing of CRDs where each is someone else's (an operator's), no mutating configuration where
 * no contract has defaults.
 */
export function chartNotes(name: string, kinds: readonly string[], parts: ChartNoteParts): string {
  const names = installNames(name);
  const configurations = parts.mutatingWebhooks
    ? 'validatingwebhookconfiguration,mutatingwebhookconfiguration'
    : 'validatingwebhookconfiguration';
  const caBundleTargets = parts.ownedCrds ? 'the webhooks and CRDs' : 'the webhooks';
  const keptCrds = parts.ownedCrds
    ? `
{{- if .Values.crds.keep }}

helm uninstall keeps the CRDs, and with them every object of their kinds; delete a CRD by hand to delete its data.
{{- end }}`
    : '';
  return `crdgate ({{ .Values.replicas }} replicas) guards ${kinds.join(', ')} in {{ .Release.Namespace }}.

Check the install:
  kubectl -n {{ .Release.Namespace }} rollout status deployment/${names.server}
  kubectl get ${configurations} ${names.webhookConfiguration}
{{- if eq .Values.certificates.mode "self-managed" }}
  # crdgate writes its CA into ${caBundleTargets}; a replica is ready once every caBundle trusts it:
  kubectl -n {{ .Release.Namespace }} get secret ${names.servingCertSecret} -o jsonpath='{.data.ca\\.crt}' | head -c 20; echo
{{- else if eq .Values.certificates.mode "cert-manager" }}
  kubectl -n {{ .Release.Namespace }} get certificate ${names.servingCertSecret}
{{- else if not .Values.certificates.caBundle }}

WARNING: certificates.mode is secret and certificates.caBundle is empty: the API server cannot trust crdgate's
certificate, and every write of the guarded kinds is refused until it is set.
{{- end }}${keptCrds}
The pods meet the restricted Pod Security Standard: label the namespace to enforce it,
  kubectl label namespace {{ .Release.Namespace }} pod-security.kubernetes.io/enforce=restricted
`;
}
