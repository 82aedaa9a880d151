import { Agent, request } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { expect } from 'vitest';
import type { Contract } from '../../../src/contract/contract-definition.ts';
import type { KubeObject } from '../../../src/contract/values/kube-object.ts';
import { eventually } from '../../../src/local-loop/eventually.ts';
import { renderCustomResourceDefinition } from '../../../src/render/custom-resource-definition.ts';
import type { Manifest } from '../../../src/render/manifest.ts';

// A small REST client for the policy e2e tests: exact status codes, bodies and warnings, one keep-alive agent for
// thousands of requests; and the CRD and policy handling they share.

export interface RestResponse {
  status: number;
  body: unknown;
  text: string;
  warnings: string[];
}

export interface Rest {
  send(method: string, path: string, body?: unknown, contentType?: string): Promise<RestResponse>;
  close(): void;
}

export function restClient(kubeconfigPath: string, { maxSockets = Infinity, timeoutMs = 60_000 } = {}): Rest {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfigPath);
  const cluster = kubeConfig.getCurrentCluster()!;
  const user = kubeConfig.getCurrentUser()!;
  const decode = (data: string | undefined) => Buffer.from(data ?? '', 'base64');
  const agent = new Agent({
    keepAlive: true,
    maxSockets,
    ca: decode(cluster.caData),
    cert: decode(user.certData),
    key: decode(user.keyData),
  });
  return {
    send(method, path, body, contentType = 'application/json') {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      return new Promise((resolve, reject) => {
        const req = request(
          new URL(path, cluster.server),
          {
            method,
            agent,
            timeout: timeoutMs,
            headers: {
              accept: 'application/json',
              ...(payload === undefined
                ? {}
                : { 'content-type': contentType, 'content-length': Buffer.byteLength(payload) }),
            },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => {
              let parsed: unknown;
              try {
                parsed = JSON.parse(text);
              } catch {
                parsed = undefined;
              }
              resolve({
                status: res.statusCode ?? 0,
                body: parsed,
                text,
                warnings: warningTexts(res.headers['warning']),
              });
            });
            res.on('error', reject);
          },
        );
        // A request's body would otherwise wait for the ACK of its headers (Nagle), which the server delays.
        req.setNoDelay(true);
        req.on('timeout', () => req.destroy(new Error(`timeout: ${method} ${path}`)));
        req.on('error', reject);
        req.end(payload);
      });
    },
    close() {
      agent.destroy();
    },
  };
}

/**
 * The texts of the Warning headers (RFC 9111: `299 - "text"`, quotes and backslashes escaped), which Node joins
 * with ", " when the API server sends several. Node reads header bytes as Latin-1; the API server writes UTF-8.
 */
function warningTexts(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  const joined = Buffer.from(Array.isArray(header) ? header.join(', ') : header, 'latin1').toString('utf8');
  return [...joined.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!.replace(/\\(.)/g, '$1'));
}

export function expectStatus(...codes: number[]): (response: RestResponse) => RestResponse {
  return (response) => {
    if (!codes.includes(response.status))
      throw new Error(`HTTP ${response.status} (expected ${codes.join(' or ')}): ${response.text.slice(0, 500)}`);
    return response;
  };
}

const plurals: Record<string, string> = {
  CustomResourceDefinition: 'customresourcedefinitions',
  ValidatingAdmissionPolicy: 'validatingadmissionpolicies',
  ValidatingAdmissionPolicyBinding: 'validatingadmissionpolicybindings',
  ValidatingWebhookConfiguration: 'validatingwebhookconfigurations',
  MutatingWebhookConfiguration: 'mutatingwebhookconfigurations',
};

export function resourcePath(apiVersion: string, kind: string): string {
  if (plurals[kind] === undefined) throw new Error(`no path for ${kind}`);
  return `/apis/${apiVersion}/${plurals[kind]}`;
}

/** Server-side apply with fieldValidation=Strict: a field the API server does not know fails it. Returns its warnings. */
export async function applyStrict(api: Rest, manifests: readonly Manifest[], fieldManager: string): Promise<string[]> {
  const warnings: string[] = [];
  for (const manifest of manifests) {
    const path = `${resourcePath(manifest.apiVersion, manifest.kind)}/${manifest.metadata.name}?fieldManager=${fieldManager}&force=true&fieldValidation=Strict`;
    const response = await api
      .send('PATCH', path, manifest, 'application/apply-patch+yaml')
      .then(expectStatus(200, 201));
    warnings.push(...response.warnings);
  }
  return warnings;
}

/**
 * The contract's CRD with the hub version alone: conversion None, so no crdgate needs to run, and every request is
 * in the version the policy matches.
 */
export function hubOnlyCrd(contract: Contract): Manifest {
  const hubOnly = { ...contract, versions: contract.versions.filter((version) => version.name === contract.hub) };
  const crd = renderCustomResourceDefinition(hubOnly, { target: { url: 'https://127.0.0.1:1' } });
  expect((crd['spec'] as { conversion: unknown }).conversion).toEqual({ strategy: 'None' });
  return crd;
}

/** Applies a CRD once another file's CRD of the same name has gone, and waits until it is established; returns the warnings. */
export async function installCrd(api: Rest, crd: Manifest, fieldManager: string): Promise<string[]> {
  const name = crd.metadata.name;
  const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`;
  // Another e2e file may have just deleted its CRD of this kind; one still in place would have its own webhooks.
  await eventually(
    `the previous ${name} to be gone`,
    async () => {
      const existing = await api.send('GET', path);
      if (existing.status === 404) return true;
      if ((existing.body as KubeObject).metadata?.deletionTimestamp === undefined)
        throw new Error(`${name} is installed already, by something else`);
      return undefined;
    },
    { timeoutMs: 60_000 },
  );
  const warnings = await applyStrict(api, [crd], fieldManager);
  await eventually(`${name} to be established`, async () => {
    const established = (await api.send('GET', path).then(expectStatus(200))).body as {
      status?: { conditions?: { type: string; status: string }[] };
    };
    return established.status?.conditions?.some(
      (condition) => condition.type === 'Established' && condition.status === 'True',
    )
      ? true
      : undefined;
  });
  return warnings;
}

export async function removeCrd(api: Rest, crd: Manifest): Promise<void> {
  const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`;
  await api.send('DELETE', path).then(expectStatus(200, 404));
  await eventually(
    `${crd.metadata.name} and its objects to be deleted`,
    async () => ((await api.send('GET', path)).status === 404 ? true : undefined),
    { timeoutMs: 120_000 },
  );
}

/** A webhook in front of these kinds would make the API server's answer not the policy's alone. */
export async function expectNoWebhookFor(api: Rest, contracts: readonly Contract[]): Promise<void> {
  const groups = new Set(contracts.map((contract) => contract.identity.group));
  for (const kind of ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations']) {
    const list = (await api.send('GET', `/apis/admissionregistration.k8s.io/v1/${kind}`).then(expectStatus(200)))
      .body as {
      items: { metadata: { name: string }; webhooks?: { rules?: { apiGroups?: string[] }[] }[] }[];
    };
    const inFront = list.items.filter((item) =>
      item.webhooks?.some((webhook) =>
        webhook.rules?.some((rule) => rule.apiGroups?.some((group) => group === '*' || groups.has(group))),
      ),
    );
    expect(
      inFront.map((item) => item.metadata.name),
      `${kind} in front of ${[...groups].join(', ')}`,
    ).toEqual([]);
  }
}
