// Apart from the loader, which carries yaml: the API client throws it too, and serve loads no yaml.

/** What is wrong with the kubeconfig, with what a caller needs to say how to fix it in its own terms (flags, say). */
export type KubeconfigProblem =
  | { problem: 'missing' }
  | { problem: 'unreadable'; file: string | undefined; detail: string }
  | { problem: 'unknown-context'; context: string; contexts: string[] }
  | { problem: 'no-current-cluster' }
  /** The credentials it names cannot be had: an exec plugin failed, a certificate file is missing. */
  | { problem: 'no-credentials'; server: string; detail: string };

/** The kubeconfig cannot be had or used. The message says what in the kubeconfig's terms; `detail` says it as data. */
export class KubeconfigError extends Error {
  override name = 'KubeconfigError';
  readonly detail: KubeconfigProblem;

  constructor(detail: KubeconfigProblem) {
    super(describeKubeconfigProblem(detail));
    this.detail = detail;
  }
}

function describeKubeconfigProblem(detail: KubeconfigProblem): string {
  switch (detail.problem) {
    case 'missing':
      return 'no kubeconfig: $KUBECONFIG is empty, there is no ~/.kube/config, and no service account token';
    case 'unreadable':
      return `cannot load the kubeconfig${detail.file ? ` ${detail.file}` : ''}: ${detail.detail}`;
    case 'unknown-context':
      return `no context ${detail.context} in the kubeconfig (contexts: ${detail.contexts.join(', ') || 'none'})`;
    case 'no-current-cluster':
      return 'the kubeconfig has no current cluster (no current context, or one naming no cluster)';
    case 'no-credentials':
      return `cannot authenticate to ${detail.server}: ${detail.detail}`;
  }
}
