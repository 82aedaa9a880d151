import type { Ajv, Format } from 'ajv';
// A deep import: the package's default export is a CommonJS plugin function TypeScript cannot type under nodenext.
import { fullFormats, type FormatName } from 'ajv-formats/dist/formats.js';
import { isQuantity } from '../values/quantity.ts';
import {
  dns1123LabelMaxLength,
  dns1123SubdomainMaxLength,
  isDns1123Label,
  isDns1123Subdomain,
} from '../values/dns-names.ts';

// The string formats Kubernetes itself checks (a subset of kube-openapi's strfmt registry that is cheap to do
// well) plus crdgate's own. A format missing here is ignored, as the API server ignores formats it does not know.

interface KubernetesFormat {
  /** Completes "must be ..." in an error message. */
  description: string;
  definition(): Format;
  /**
   * For a format of crdgate's own, which kube-apiserver does not know: what the CRD says in its place, so that the
   * API server holds the rule itself (see apiServerRuleFor).
   */
  apiServer?: ApiServerFormatRule;
}

/** A CEL rule on a string (`self`) that refuses no value the format accepts, and the length the format implies. */
interface ApiServerFormatRule {
  rule: string;
  maxLength?: number;
}

// ajv-formats' definitions follow the JSON Schema specifications, which agree with Kubernetes on these.
const fromAjvFormats = (name: FormatName) => (): Format => fullFormats[name];

const kubernetesFormats: Readonly<Record<string, KubernetesFormat>> = {
  // Kubernetes' CEL quantity library parses as apimachinery does, which takes a few strings crdgate refuses (digitless
  // ones such as "Gi", more than 128 characters, exponents past 1000): the webhook refuses those, the rule none more.
  quantity: {
    description: 'a Kubernetes quantity such as 500m, 64Mi, 2Gi or 1.5e3',
    definition: () => ({ type: 'string', validate: isQuantity }),
    apiServer: { rule: 'isQuantity(self)' },
  },
  // The CEL format library's DNS names are apimachinery's, as crdgate's are (dns-names.ts).
  'dns1123-label': {
    description:
      "a DNS-1123 label: at most 63 lowercase alphanumeric characters or '-', starting and ending with an alphanumeric character",
    definition: () => ({ type: 'string', validate: isDns1123Label }),
    apiServer: { rule: '!format.dns1123Label().validate(self).hasValue()', maxLength: dns1123LabelMaxLength },
  },
  'dns1123-subdomain': {
    description:
      "a DNS-1123 subdomain: at most 253 lowercase alphanumeric characters, '-' or '.', starting and ending with an alphanumeric character",
    definition: () => ({ type: 'string', validate: isDns1123Subdomain }),
    apiServer: { rule: '!format.dns1123Subdomain().validate(self).hasValue()', maxLength: dns1123SubdomainMaxLength },
  },
  // strfmt's UUID: hyphenated or 32 bare hex digits, any case.
  uuid: {
    description: 'a UUID',
    definition: () => /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/i,
  },
  int32: { description: 'an integer that fits in 32 bits', definition: () => integerFormat(2 ** 31) },
  // ajv-formats accepts any integer as int64; a double cannot tell 2^63 - 1 from 2^63, so that is the bound.
  int64: { description: 'an integer that fits in 64 bits', definition: () => integerFormat(2 ** 63) },
  'date-time': {
    description: 'an RFC 3339 date-time such as 2024-05-01T12:00:00Z',
    definition: fromAjvFormats('date-time'),
  },
  date: { description: 'an RFC 3339 full-date such as 2024-05-01', definition: fromAjvFormats('date') },
  byte: { description: 'base64-encoded data', definition: fromAjvFormats('byte') },
  hostname: { description: 'a hostname', definition: fromAjvFormats('hostname') },
  ipv4: { description: 'an IPv4 address', definition: fromAjvFormats('ipv4') },
  ipv6: { description: 'an IPv6 address', definition: fromAjvFormats('ipv6') },
};

/** Integers in [-limit, limit), the range of a two's complement integer. */
function integerFormat(limit: number): Format {
  return {
    type: 'number',
    validate: (value: number) => Number.isInteger(value) && value >= -limit && value <= limit - 1,
  };
}

/**
 * Whether crdgate checks the format and Kubernetes does not know it (kube-apiserver warns "unrecognized format" on a
 * CRD that names one, and checks nothing): a rule of crdgate's own, which the CRD crdgate renders says in CEL.
 */
export function isCrdgateOwnFormat(name: string): boolean {
  return apiServerRuleFor(name) !== undefined;
}

/**
 * What a CRD says in place of a format of crdgate's own: a CEL rule that refuses no value the format accepts, with
 * crdgate's words for its message, and the length the format implies (a DNS label is at most 63 characters), which
 * bounds the rule's cost. Undefined for a format kube-apiserver knows, or one crdgate does not.
 */
export function apiServerRuleFor(name: string): { rule: string; message: string; maxLength?: number } | undefined {
  const format = Object.hasOwn(kubernetesFormats, name) ? kubernetesFormats[name] : undefined;
  if (format?.apiServer === undefined) return undefined;
  return { ...format.apiServer, message: `must be ${format.description}` };
}

export function isKnownFormat(name: string): boolean {
  return Object.hasOwn(kubernetesFormats, name);
}

export function describeFormat(name: string): string {
  return (Object.hasOwn(kubernetesFormats, name) && kubernetesFormats[name]?.description) || `in the ${name} format`;
}

export function addKubernetesFormats(ajv: Ajv): void {
  for (const [name, format] of Object.entries(kubernetesFormats)) ajv.addFormat(name, format.definition());
}
