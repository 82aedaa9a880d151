// The DNS names of k8s.io/apimachinery/pkg/util/validation, the one place crdgate spells them: what Kubernetes
// requires of object names, resource and version names, label-like identifiers and anything that may end up as a
// hostname. Lengths are checked first: they keep the regular expressions off arbitrarily long input.

const dns1123LabelPattern = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1035LabelPattern = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
// As apimachinery has it: the labels of a subdomain have no length limit of their own, only the whole has.
const dns1123SubdomainPattern = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export const dns1123LabelMaxLength = 63;
export const dns1035LabelMaxLength = 63;
export const dns1123SubdomainMaxLength = 253;

/** How each rule reads in a message, after "must be". */
export const dnsNameRules = {
  dns1123Label:
    "a DNS-1123 label: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit",
  dns1035Label:
    "a DNS-1035 label: at most 63 lowercase letters, digits and '-', starting with a letter and ending with a letter or digit",
  dns1123Subdomain:
    "a DNS-1123 subdomain: at most 253 characters of dot-separated lowercase letters, digits and '-', each part starting and ending with a letter or digit",
} as const;

/** Lowercase alphanumerics and '-', starting and ending with an alphanumeric, at most 63 characters. */
export function isDns1123Label(text: string): boolean {
  return text.length <= dns1123LabelMaxLength && dns1123LabelPattern.test(text);
}

/** A DNS-1123 label that starts with a letter: Service names, and a CRD's resource and version names. */
export function isDns1035Label(text: string): boolean {
  return text.length <= dns1035LabelMaxLength && dns1035LabelPattern.test(text);
}

/** Dot-separated DNS-1123 labels, at most 253 characters in all. */
export function isDns1123Subdomain(text: string): boolean {
  return text.length <= dns1123SubdomainMaxLength && dns1123SubdomainPattern.test(text);
}

// apimachinery's IsQualifiedName and IsValidLabelValue: label and annotation keys, and label values.
const qualifiedNamePattern = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const labelValuePattern = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const qualifiedNameMaxLength = 63;

/** A label or annotation key: an optional DNS-1123 subdomain and '/', then a name of at most 63 characters. */
export function isQualifiedName(text: string): boolean {
  const slash = text.indexOf('/');
  const name = slash < 0 ? text : text.slice(slash + 1);
  if (slash >= 0 && !isDns1123Subdomain(text.slice(0, slash))) return false;
  return name.length <= qualifiedNameMaxLength && qualifiedNamePattern.test(name);
}

export const qualifiedNameRule =
  "a qualified name: an optional DNS-1123 subdomain and '/', then at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit";

/** A label's value: at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit; or empty. */
export function isLabelValue(text: string): boolean {
  return text.length <= qualifiedNameMaxLength && labelValuePattern.test(text);
}

// apimachinery's own messages (IsDNS1035Label, IsDNS1123Subdomain), for what must read as kube-apiserver's answer:
// the length first (Go counts bytes), then the pattern with its examples, joined as the API server joins them.

/** What apimachinery's IsDNS1035Label says of `text`: empty when it is one. */
export function dns1035LabelErrors(text: string): string[] {
  const errors: string[] = [];
  if (utf8Length(text) > dns1035LabelMaxLength) errors.push(maxLengthError(dns1035LabelMaxLength));
  if (!dns1035LabelPattern.test(text)) {
    errors.push(
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, " +
        "and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    );
  }
  return errors;
}

/** What apimachinery's IsDNS1123Subdomain says of `text`: empty when it is one. */
export function dns1123SubdomainErrors(text: string): string[] {
  const errors: string[] = [];
  if (utf8Length(text) > dns1123SubdomainMaxLength) errors.push(maxLengthError(dns1123SubdomainMaxLength));
  if (!dns1123SubdomainPattern.test(text)) {
    errors.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start " +
        "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is " +
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
  }
  return errors;
}

function maxLengthError(length: number): string {
  return `must be no more than ${length} characters`;
}

const utf8 = new TextEncoder();

function utf8Length(text: string): number {
  return utf8.encode(text).length;
}
