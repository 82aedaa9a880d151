import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geoDatabaseContract } from '../../src/contracts/geodatabase/index.ts';
import type { Contract } from '../../src/contract/contract-definition.ts';
import type { KubeObject } from '../../src/contract/values/kube-object.ts';
import type { JSONSchemaProps } from '../../src/contract/schema/json-schema-props.ts';
import { renderCustomResourceDefinition } from '../../src/render/custom-resource-definition.ts';
import { contractTester } from '../../src/testing.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { useCrdgateInFront } from './support/crdgate-in-front.ts';
import { storedDifferences } from './support/differential/compare.ts';
import { validGeoDatabase } from './support/geodatabases.ts';
import { restClient, type Rest } from './support/raw-api.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;
const cli = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const placeholder = { target: { service: { namespace: 'crdgate-system', name: 'crdgate', port: 443 } } };

interface Outcome {
  allowed: boolean;
  /** `field: message` per refused field, as the API server's Status causes say them. */
  causes: string[];
}

/**
 * `crdgate check -o json --defaulted json`: the report on standard error (nothing else may be there), and on
 * standard output, when allowed, the object as it would be stored.
 */
function crdgateCheck(cwd: string, file: string): Promise<{ code: number; report: any; stored: unknown }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [cli, 'check', '-f', file, '-o', 'json', '--defaulted', 'json'],
      { cwd },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') return reject(error);
        try {
          resolve({
            code: typeof error?.code === 'number' ? error.code : 0,
            report: JSON.parse(stderr),
            stored: stdout === '' ? undefined : JSON.parse(stdout),
          });
        } catch {
          reject(new Error(`crdgate check printed no JSON report alone: ${stdout}${stderr}`));
        }
      },
    );
  });
}

/**
 * The built-in example states one of its rules in CEL (a StorageClass name must be a DNS subdomain, in v1 and
 * v1beta1): rendered into the CRD, it is kube-apiserver that enforces it, crdgate running or not, and `crdgate
 * check` must decide it offline exactly as the API server does. A rule the API server would refuse at CRD write
 * time stops crdgate at load, in the API server's words.
 */
describe.skipIf(!controlPlane)(
  "a contract's CEL rules, enforced by kube-apiserver and decided identically offline",
  () => {
    const cp = controlPlane as ProvidedControlPlane;
    const scene = useCrdgateInFront(cp, 'crdgate-e2e-cel');
    let rest: Rest;
    let work: string;

    beforeAll(async () => {
      rest = restClient(cp.kubeconfigPath);
      work = await mkdtemp(join(tmpdir(), 'crdgate-e2e-cel-'));
    });
    afterAll(async () => {
      if (work) await rm(work, { recursive: true, force: true });
    });

    const withStorageClass = (name: string, apiVersion: string, storageClassName: string): KubeObject => {
      const object = validGeoDatabase(scene().namespace, name);
      const spec = object.spec as Record<string, any>;
      if (apiVersion === 'geo.example.com/v1beta1') {
        // v1beta1 names the read replicas `replicas`; the rest of this object is the same in both.
        return { ...object, apiVersion, spec: { ...spec, storage: { ...spec.storage, storageClassName } } };
      }
      return { ...object, spec: { ...spec, storage: { ...spec.storage, storageClassName } } };
    };

    /** The outcome, and when allowed the object as the API server would store it. */
    async function apiServerOutcome(object: KubeObject): Promise<{ outcome: Outcome; stored?: unknown }> {
      const [group, version] = String(object.apiVersion).split('/');
      const response = await rest.send(
        'POST',
        `/apis/${group}/${version}/namespaces/${scene().namespace}/geodatabases?dryRun=All&fieldValidation=Strict`,
        object,
      );
      if (response.status === 201) return { outcome: { allowed: true, causes: [] }, stored: response.body };
      const status = response.body as {
        code?: number;
        details?: { causes?: Array<{ field?: string; message?: string }> };
      };
      expect(status.code, response.text).toBe(422);
      return {
        outcome: {
          allowed: false,
          causes: (status.details?.causes ?? []).map((cause) => `${cause.field ?? ''}: ${cause.message ?? ''}`),
        },
      };
    }

    async function crdgateOutcome(object: KubeObject, file: string): Promise<{ outcome: Outcome; stored?: unknown }> {
      await writeFile(join(work, file), JSON.stringify(object));
      const { code, report, stored } = await crdgateCheck(work, file);
      expect(report.objects).toHaveLength(1);
      const result = report.objects[0];
      expect(code).toBe(result.allowed ? 0 : 1);
      return {
        outcome: {
          allowed: result.allowed,
          causes: (result.causes ?? []).map(
            (cause: { field: string; message: string }) => `${cause.field}: ${cause.message}`,
          ),
        },
        stored,
      };
    }

    it.each([
      ['v1, a name with capitals and an underscore', 'geo.example.com/v1', 'Fast_SSD'],
      ['v1beta1, a name ending in a dot', 'geo.example.com/v1beta1', 'fast.'],
      ['v1, a StorageClass name', 'geo.example.com/v1', 'fast-ssd.example.com'],
      ['v1beta1, a StorageClass name', 'geo.example.com/v1beta1', 'standard'],
    ])(
      '%s: the API server and crdgate check give the same outcome, field and message, and store the same object',
      async (_title, apiVersion, storageClassName) => {
        const name = `cel-${storageClassName.toLowerCase().replace(/[^a-z0-9]/g, '')}-${apiVersion.endsWith('v1') ? 'v1' : 'beta'}`;
        const object = withStorageClass(name, apiVersion, storageClassName);
        const { outcome: server, stored } = await apiServerOutcome(object);
        const { outcome: offline, stored: storedOffline } = await crdgateOutcome(object, `${name}.json`);
        expect(offline).toEqual(server);
        // Allowed, both store the same object, defaults included (metadata aside, the API server's own); refused, neither.
        expect(storedDifferences(stored, storedOffline)).toEqual([]);
        const valid = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(storageClassName);
        expect(server.allowed).toBe(valid);
        if (!valid) {
          expect(server.causes).toEqual([
            expect.stringMatching(
              /^spec\.storage\.storageClassName: Invalid value: ".*": must be the name of a StorageClass: a lowercase RFC 1123 subdomain/,
            ),
          ]);
        }
      },
    );

    it('kube-apiserver enforces the rule by itself: the same CRD under a group no webhook of crdgate matches', async () => {
      const contract = geoDatabaseContract();
      const alone = { ...contract, identity: { ...contract.identity, group: 'cel-alone.example.com' } };
      const crd = renderCustomResourceDefinition(alone, placeholder) as any;
      const created = await rest.send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
      expect(created.status, created.text).toBe(201);
      try {
        const collection = `/apis/cel-alone.example.com/v1/namespaces/${scene().namespace}/geodatabases`;
        const object = (storageClassName: string) => ({
          ...withStorageClass('alone', 'geo.example.com/v1', storageClassName),
          apiVersion: 'cel-alone.example.com/v1',
        });
        // Served once the CRD is established: a few tries.
        let refused = await rest.send('POST', `${collection}?dryRun=All`, object('Fast_SSD'));
        for (let tries = 0; refused.status === 404 && tries < 50; tries += 1) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          refused = await rest.send('POST', `${collection}?dryRun=All`, object('Fast_SSD'));
        }
        expect(refused.status, refused.text).toBe(422);
        expect((refused.body as any).details.causes).toEqual([
          expect.objectContaining({
            field: 'spec.storage.storageClassName',
            message: expect.stringContaining('must be the name of a StorageClass: a lowercase RFC 1123 subdomain'),
          }),
        ]);
        const taken = await rest.send('POST', `${collection}?dryRun=All`, object('fast-ssd'));
        expect(taken.status, taken.text).toBe(201);
      } finally {
        await rest.send('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`);
      }
    });

    describe('a rule the API server would refuse stops crdgate at load, in its words', () => {
      const withRule = (rule: Record<string, unknown>): Contract => {
        const contract = geoDatabaseContract();
        const addRule = (schema: JSONSchemaProps): JSONSchemaProps => {
          const copy = structuredClone(schema) as any;
          copy.properties.spec['x-kubernetes-validations'] = [rule];
          return copy;
        };
        // A group of its own, so that the API server judges the CRD as a create, not as an update of the scene's.
        return {
          ...contract,
          identity: { ...contract.identity, group: 'cel-refused.example.com' },
          versions: contract.versions.map((version) =>
            version.name === 'v1' ? { ...version, schema: addRule(version.schema) } : version,
          ),
        };
      };

      it.each([
        ['a syntax error', { rule: 'self.storage.size ==', message: 'x' }],
        ['a function the API server does not have', { rule: 'self.storage.size.isQuantityy()', message: 'x' }],
        ['a messageExpression that is not a string', { rule: 'true', messageExpression: '1 + 1' }],
        [
          'a cost over the per-expression limit',
          {
            rule: 'self.caches.all(a, self.caches.all(b, self.caches.all(c, self.caches.all(d, a.memory.matches(b.memory + c.memory + d.memory)))))',
            message: 'x',
          },
        ],
        ['a fieldPath that names no field', { rule: 'true', message: 'x', fieldPath: '.nope' }],
      ])('%s', async (_title, rule) => {
        const contract = withRule(rule);
        let thrown: unknown;
        try {
          contractTester(contract);
        } catch (error) {
          thrown = error;
        }
        expect(thrown, 'contractTester loaded a contract whose CRD the API server refuses').toBeInstanceOf(Error);
        const answer = await rest.send(
          'POST',
          '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All',
          renderCustomResourceDefinition(contract, placeholder),
        );
        const status = answer.body as {
          code?: number;
          details?: { causes?: Array<{ field?: string; message?: string }> };
        };
        expect(status.code, answer.text).toBe(422);
        const causes = status.details?.causes ?? [];
        expect(causes.length).toBeGreaterThan(0);
        const words = (thrown as Error).message;
        // crdgate's own structural check may say it first, naming the field from the version's schema down.
        for (const cause of causes)
          expect(words).toContain(`${cause.field!.replace(/^spec\.versions\[\d+\]\.schema\./, '')}: ${cause.message}`);
      });
    });
  },
);
