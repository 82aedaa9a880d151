import { stringify } from 'yaml';
import { timeoutSecondsRange, webhookDefaults, type WebhookSettings } from '../webhook-settings.ts';

// The chart's values: each key once, with the comment values.yaml shows, its default, and the JSON schema that
// refuses a mistyped value. values.yaml and values.schema.json are both written from here, so they cannot disagree.

export type JsonSchema = Record<string, unknown>;

export interface ValueKey {
  comment: string;
  default: unknown;
  schema: JsonSchema;
}

export interface ValueGroup {
  comment: string;
  keys: Record<string, ValueEntry>;
}

export type ValueEntry = ValueKey | ValueGroup;

export const certificateModes = ['self-managed', 'cert-manager', 'secret'] as const;
export type CertificateMode = (typeof certificateModes)[number];

/** What the defaults are read from: the objects crdgate renders for the same contracts and flags. */
export interface ChartValueDefaults {
  image: { repository: string; tag: string; digest: string };
  replicas: number;
  resources: unknown;
  topologySpreadConstraints: unknown;
  minAvailable: number;
  /** The policy floor can be turned on: some contract has something the policies compile. */
  policyFloor: boolean;
  /** A migration Job can be run: some contract's CRD is crdgate's. */
  migration: boolean;
  /** The chart renders CRDs: some contract's CRD is crdgate's (none where every CRD is an operator's). */
  crds: boolean;
  /** The webhook settings the chart was rendered with (the flags of crdgate manifests). */
  webhooks: WebhookSettings;
}

const labelSelectorSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    matchLabels: { type: 'object', additionalProperties: { type: 'string' } },
    matchExpressions: {
      type: 'array',
      items: {
        type: 'object',
        required: ['key', 'operator'],
        additionalProperties: false,
        properties: {
          key: { type: 'string', minLength: 1 },
          operator: { enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'] },
          values: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
};

const stringMap: JsonSchema = { type: 'object', additionalProperties: { type: 'string' } };
const anyObject: JsonSchema = { type: 'object' };
const objectList: JsonSchema = { type: 'array', items: { type: 'object' } };

export function chartValues(defaults: ChartValueDefaults): ValueGroup {
  return {
    comment: '',
    keys: {
      global: {
        comment: 'Values a parent chart shares with all its subcharts. crdgate reads none; any key is accepted here.',
        default: {},
        schema: { type: 'object' },
      },
      replicas: {
        comment:
          'Replicas of the webhook server. Two or more: with failurePolicy Fail, no write of the guarded kinds goes through while none is ready.',
        default: defaults.replicas,
        schema: { type: 'integer', minimum: 1 },
      },
      image: {
        comment:
          "crdgate's image: it must hold the contracts this chart was rendered for (crdgate init's Dockerfile builds one).",
        keys: {
          repository: {
            comment: 'The image without tag or digest.',
            default: defaults.image.repository,
            schema: { type: 'string', minLength: 1, pattern: '^\\S+$' },
          },
          tag: {
            comment: 'The tag; empty: the chart appVersion.',
            default: defaults.image.tag,
            schema: { type: 'string', pattern: '^\\S*$' },
          },
          digest: {
            comment: 'sha256:...; when set, it is used instead of the tag.',
            default: defaults.image.digest,
            schema: { type: 'string', pattern: '^(sha256:[0-9a-f]{64})?$' },
          },
          pullPolicy: {
            comment: "Always, IfNotPresent or Never; empty: the cluster's default.",
            default: '',
            schema: { enum: ['', 'Always', 'IfNotPresent', 'Never'] },
          },
        },
      },
      imagePullSecrets: {
        comment: 'Secrets to pull the image with, as [{name: NAME}] (the server and the migration Jobs).',
        default: [],
        schema: {
          type: 'array',
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        },
      },
      resources: {
        comment:
          "The server container's resources. No CPU limit on purpose: throttling shows as latency on every guarded write.",
        default: defaults.resources,
        schema: anyObject,
      },
      nodeSelector: { comment: "The server pods' nodeSelector.", default: {}, schema: stringMap },
      tolerations: { comment: "The server pods' tolerations.", default: [], schema: objectList },
      affinity: { comment: "The server pods' affinity.", default: {}, schema: anyObject },
      topologySpreadConstraints: {
        comment: 'How the replicas spread; by default over nodes, so that losing one node does not take every replica.',
        default: defaults.topologySpreadConstraints,
        schema: objectList,
      },
      priorityClassName: {
        comment: "The server pods' priorityClassName (system-cluster-critical keeps them scheduled under pressure).",
        default: '',
        schema: { type: 'string' },
      },
      podAnnotations: { comment: 'Annotations added to the server pods.', default: {}, schema: stringMap },
      podLabels: {
        comment: "Labels added to the server pods (the selector's own labels stay).",
        default: {},
        schema: stringMap,
      },
      logLevel: {
        comment: "The server's log level.",
        default: 'info',
        schema: { enum: ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] },
      },
      podDisruptionBudget: {
        comment: 'The PodDisruptionBudget of the server: a drain never takes the last ready replica.',
        keys: {
          enabled: { comment: 'Render it.', default: true, schema: { type: 'boolean' } },
          minAvailable: {
            comment: 'Replicas a voluntary disruption must leave.',
            default: defaults.minAvailable,
            schema: { type: 'integer', minimum: 0 },
          },
        },
      },
      webhooks: {
        comment:
          "The webhooks' settings, as crdgate manifests --failure-policy, --timeout-seconds and the selectors set them.",
        keys: {
          failurePolicy: {
            comment:
              'What the API server does when crdgate cannot answer: Fail refuses the write, Ignore lets it through unjudged. A webhook that can only warn is always Ignore.',
            default: defaults.webhooks.failurePolicy ?? webhookDefaults.failurePolicy,
            schema: { enum: ['Fail', 'Ignore'] },
          },
          timeoutSeconds: {
            comment: `How long the API server waits for crdgate (${timeoutSecondsRange.min} to ${timeoutSecondsRange.max}).`,
            default: defaults.webhooks.timeoutSeconds ?? webhookDefaults.timeoutSeconds,
            schema: { type: 'integer', minimum: timeoutSecondsRange.min, maximum: timeoutSecondsRange.max },
          },
          namespaceSelector: {
            comment: 'Only objects in namespaces this selects reach crdgate (a LabelSelector); empty: all.',
            default: defaults.webhooks.namespaceSelector ?? {},
            schema: labelSelectorSchema,
          },
          objectSelector: {
            comment: 'Only objects whose labels this selects reach crdgate (a LabelSelector); empty: all.',
            default: defaults.webhooks.objectSelector ?? {},
            schema: labelSelectorSchema,
          },
        },
      },
      certificates: {
        comment:
          'Where the serving certificate comes from, and how the webhooks and CRDs get the CA that trusts it. Nothing is generated in a template: the chart renders the same on every helm template, so Argo CD and Flux see no drift.',
        keys: {
          mode: {
            comment: `self-managed: crdgate serve --manage-certs makes, rotates and injects its own CA (nothing else to install).
cert-manager: cert-manager (installed first) issues the certificate and injects the CA.
secret: you create the kubernetes.io/tls Secret NAME-serving-cert for NAME.NAMESPACE.svc and give its CA in caBundle.`,
            default: 'self-managed',
            schema: { enum: [...certificateModes] },
          },
          caBundle: {
            comment: "mode secret: the PEM of the CA that signed the Secret's certificate (ca.crt of crdgate certs).",
            default: '',
            schema: { type: 'string' },
          },
        },
      },
      ...(defaults.crds
        ? {
            crds: {
              comment:
                'The CRDs of the contracts crdgate owns. They are templates, not crds/, so that helm upgrade changes them when a contract changes.',
              keys: {
                enabled: {
                  comment: 'Render them (false: they are installed some other way).',
                  default: true,
                  schema: { type: 'boolean' },
                },
                keep: {
                  comment:
                    'helm uninstall leaves them, and so every object of their kinds (helm.sh/resource-policy: keep). Delete a CRD by hand to delete its data.',
                  default: true,
                  schema: { type: 'boolean' },
                },
              },
            },
          }
        : {}),
      networkPolicy: {
        comment: 'The NetworkPolicy of the server.',
        keys: { enabled: { comment: 'Render it.', default: true, schema: { type: 'boolean' } } },
      },
      ...(defaults.policyFloor
        ? {
            policyFloor: {
              comment:
                "The policy floor: the webhooks (all but /scale's) at failurePolicy Ignore, and admission policies the API server enforces itself while crdgate is down (see docs/operations.md before choosing it).",
              keys: { enabled: { comment: 'Render it.', default: false, schema: { type: 'boolean' } } },
            },
          }
        : {}),
      monitoring: {
        comment: 'Monitoring (Prometheus Operator and Grafana).',
        keys: {
          serviceMonitor: {
            comment: 'A ServiceMonitor scraping /metrics over HTTPS (needs the Prometheus Operator CRDs).',
            keys: { enabled: { comment: 'Render it.', default: false, schema: { type: 'boolean' } } },
          },
          dashboard: {
            comment: 'The Grafana dashboard in a ConfigMap labelled grafana_dashboard: "1", for the Grafana sidecar.',
            keys: { enabled: { comment: 'Render it.', default: false, schema: { type: 'boolean' } } },
          },
        },
      },
      ...(defaults.migration
        ? {
            migration: {
              comment:
                'The storage-version migration: turn it on for the upgrade that changes a storage version. Its Jobs then run as a post-upgrade hook, and helm upgrade waits for them.',
              keys: {
                enabled: {
                  comment: 'Render the migration Jobs and their RBAC.',
                  default: false,
                  schema: { type: 'boolean' },
                },
                dryRun: {
                  comment:
                    "Every write sent with dryRun=All: conversion and admission run, nothing is stored; each object is also judged against the storage version's rules (the Jobs then ask for more memory, for the API server engine).",
                  default: false,
                  schema: { type: 'boolean' },
                },
              },
            },
          }
        : {}),
    },
  };
}

function isGroup(entry: ValueEntry): entry is ValueGroup {
  return 'keys' in entry;
}

/** values.yaml: every key under its comment. */
export function valuesYaml(values: ValueGroup): string {
  return `${groupLines(values, '').join('\n')}\n`;
}

function groupLines(group: ValueGroup, indent: string): string[] {
  return Object.entries(group.keys).flatMap(([key, entry], index) => [
    ...(index > 0 && indent === '' ? [''] : []),
    ...entry.comment.split('\n').map((line) => `${indent}# ${line}`),
    ...(isGroup(entry)
      ? [`${indent}${key}:`, ...groupLines(entry, `${indent}  `)]
      : keyLines(key, entry.default, indent)),
  ]);
}

function keyLines(key: string, value: unknown, indent: string): string[] {
  const text = stringify(
    { [key]: value },
    { sortMapEntries: true, lineWidth: 0, aliasDuplicateObjects: false },
  ).trimEnd();
  return text.split('\n').map((line) => `${indent}${line}`);
}

/**
 * values.schema.json: a mistyped value is refused with its path. Unknown keys are refused too (a misspelt key would
 * otherwise do nothing), except under global, which a parent chart fills with keys of its own.
 */
export function valuesSchema(values: ValueGroup): JsonSchema {
  return { $schema: 'https://json-schema.org/draft-07/schema#', ...groupSchema(values) };
}

function groupSchema(group: ValueGroup): JsonSchema {
  return {
    type: 'object',
    ...(group.comment !== '' ? { description: group.comment } : {}),
    additionalProperties: false,
    properties: Object.fromEntries(
      Object.entries(group.keys).map(([key, entry]) => [
        key,
        isGroup(entry) ? groupSchema(entry) : { description: entry.comment, ...entry.schema },
      ]),
    ),
  };
}
