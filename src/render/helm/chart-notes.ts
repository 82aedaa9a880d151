import { installNames } from '../in-cluster-names.ts';

/** NOTES.txt: what helm prints after an install or upgrade, how to check that crdgate is serving. */
export function chartNotes(name: string, kinds: readonly string[]): string {
  const names = installNames(name);
  return `crdgate ({{ .Values.replicas }} replicas) guards ${kinds.join(', ')} in {{ .Release.Namespace }}.

Check the install:
  kubectl -n {{ .Release.Namespace }} rollout status deployment/${names.server}
  kubectl get validatingwebhookconfiguration,mutatingwebhookconfiguration ${names.webhookConfiguration}
{{- if eq .Values.certificates.mode "self-managed" }}
  # crdgate writes its CA into the webhooks and CRDs; a replica is ready once every caBundle trusts it:
  kubectl -n {{ .Release.Namespace }} get secret ${names.servingCertSecret} -o jsonpath='{.data.ca\\.crt}' | head -c 20; echo
{{- else if eq .Values.certificates.mode "cert-manager" }}
  kubectl -n {{ .Release.Namespace }} get certificate ${names.servingCertSecret}
{{- else if not .Values.certificates.caBundle }}

WARNING: certificates.mode is secret and certificates.caBundle is empty: the API server cannot trust crdgate's
certificate, and every write of the guarded kinds is refused until it is set.
{{- end }}
{{- if .Values.crds.keep }}

helm uninstall keeps the CRDs, and with them every object of their kinds; delete a CRD by hand to delete its data.
{{- end }}
The pods meet the restricted Pod Security Standard: label the namespace to enforce it,
  kubectl label namespace {{ .Release.Namespace }} pod-security.kubernetes.io/enforce=restricted
`;
}
