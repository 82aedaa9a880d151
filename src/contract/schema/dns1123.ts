// The DNS-1123 names of k8s.io/apimachinery/pkg/util/validation: what Kubernetes requires of object names,
// label-like identifiers and anything that may end up as a hostname.

const labelPattern = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const subdomainPattern = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export const dns1123LabelMaxLength = 63;
export const dns1123SubdomainMaxLength = 253;

/** Lowercase alphanumerics and '-', starting and ending with an alphanumeric, at most 63 characters. */
export function isDns1123Label(text: string): boolean {
  // Length first: it keeps the regular expression off arbitrarily long input.
  return text.length <= dns1123LabelMaxLength && labelPattern.test(text);
}

/** Dot-separated DNS-1123 labels, at most 253 characters in all. */
export function isDns1123Subdomain(text: string): boolean {
  return text.length <= dns1123SubdomainMaxLength && subdomainPattern.test(text);
}
