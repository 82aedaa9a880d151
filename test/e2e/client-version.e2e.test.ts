import { ApiException, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { useCrdgateInFront } from './support/crdgate-in-front.ts';
import { kubectl, warningLines } from './support/kubectl.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;
const stash = 'geo.example.com/conversion-data';

/** The Status of a write the API server refused, as a client reads it. */
async function refusedStatus(
  call: Promise<unknown>,
): Promise<{ code: number; message: string; causes: Array<{ reason?: string; field?: string }> }> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof ApiException)) throw error;
    const body = (typeof error.body === 'string' ? JSON.parse(error.body) : error.body) as {
      message?: string;
      details?: { causes?: Array<{ reason?: string; field?: string }> };
    };
    return { code: error.code, message: body.message ?? '', causes: body.details?.causes ?? [] };
  }
  throw new Error('the API server accepted the request');
}

// crdgate registers for v1 only, with matchPolicy Equivalent: the API server converts an older client's object to v1
// before calling it, and only requestKind still names the version the client wrote. The client must read its own fields.
describe.skipIf(!controlPlane)(
  'denials and warnings in the version the client wrote, behind the real API server',
  () => {
    const cp = controlPlane as ProvidedControlPlane;
    const scene = useCrdgateInFront(cp, 'crdgate-e2e-client-version');
    const resource = (version: string) => ({
      group: 'geo.example.com',
      version,
      plural: 'geodatabases',
      namespace: scene().namespace,
    });
    const v1beta1 = (name: string, spec: Record<string, unknown>, annotations?: Record<string, string>) => ({
      apiVersion: 'geo.example.com/v1beta1',
      kind: 'GeoDatabase',
      metadata: { name, namespace: scene().namespace, ...(annotations ? { annotations } : {}) },
      spec: {
        postgres: { version: '16.4', postgis: '3.4.2' },
        storage: { size: '20Gi' },
        caches: [{ name: 'tiles', memory: '1Gi' }],
        ...spec,
      },
    });
    const create = (version: string, body: object) =>
      scene().customObjects.createNamespacedCustomObject({ ...resource(version), body });
    // kubectl talks v1beta1 when the resource is named with its version.
    const patchV1beta1 = (name: string, patch: object, subresource?: 'status') =>
      kubectl(cp, [
        'patch',
        'geodatabases.v1beta1.geo.example.com',
        name,
        '-n',
        scene().namespace,
        ...(subresource ? [`--subresource=${subresource}`] : []),
        '--type=merge',
        '-p',
        JSON.stringify(patch),
      ]);

    it("warns a v1beta1 client about a scale-down at its own spec.replicas, not v1's spec.readReplicas", async () => {
      await create('v1beta1', v1beta1('fewer', { replicas: 3 }));
      expect(await patchV1beta1('fewer', { status: { phase: 'Ready' } }, 'status')).toMatchObject({ exitCode: 0 });

      const scaledDown = await patchV1beta1('fewer', { spec: { replicas: 1 } });
      expect(scaledDown.exitCode).toBe(0);
      expect(warningLines(scaledDown)).toEqual(['Warning: spec.replicas: reducing read replicas from 3 to 1']);
    });

    it('refuses a v1beta1 scale while upgrading, naming spec.replicas in the message and the cause', async () => {
      await create('v1beta1', v1beta1('upgrading', { replicas: 1 }));
      expect(await patchV1beta1('upgrading', { status: { phase: 'Upgrading' } }, 'status')).toMatchObject({
        exitCode: 0,
      });

      const refused = await patchV1beta1('upgrading', { spec: { replicas: 2 } });
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toContain(
        'spec.replicas: changing read replicas from 1 to 2 is not allowed while the database is Upgrading',
      );
      expect(refused.stderr).not.toContain('readReplicas');

      const status = await refusedStatus(
        scene().customObjects.patchNamespacedCustomObject(
          { ...resource('v1beta1'), name: 'upgrading', body: { spec: { replicas: 2 } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        ),
      );
      expect(status.code).toBe(403);
      expect(status.causes).toEqual([
        {
          reason: 'FieldValueForbidden',
          field: 'spec.replicas',
          message: expect.stringContaining('changing read replicas'),
        },
      ]);
    });

    // This one also shows how the API server calls: only v1's schema checks a cache's version, so the denial proves
    // crdgate got the object in v1, and its wording that requestKind named v1beta1.
    it('names a stashed v1 field, which v1beta1 does not have, as the v1 field it is', async () => {
      // What a v1 cache had beyond v1beta1 travels in the stash: here a Redis version no schema of v1beta1 can see.
      const status = await refusedStatus(
        create(
          'v1beta1',
          v1beta1('stashed', {}, { [stash]: JSON.stringify({ caches: [{ name: 'tiles', version: 'latest' }] }) }),
        ),
      );
      expect(status.code).toBe(422);
      expect(status.causes).toEqual([
        {
          reason: 'FieldValueInvalid',
          field: 'spec.caches[0].version (v1 field; no v1beta1 equivalent)',
          message: expect.stringContaining('latest'),
        },
      ]);
      expect(status.message).toContain(
        'spec.caches[0].version (v1 field; no v1beta1 equivalent): Invalid value: "latest"',
      );
    });

    it("names a v1alpha1 client's flat fields in an invariant's denial", async () => {
      const status = await refusedStatus(
        create('v1alpha1', {
          apiVersion: 'geo.example.com/v1alpha1',
          kind: 'GeoDatabase',
          metadata: { name: 'too-new', namespace: scene().namespace },
          spec: { postgresVersion: '18.1', postgisVersion: '3.4.2', storageGB: 20 },
        }),
      );
      expect(status.code).toBe(422);
      expect(status.causes.map((cause) => cause.field)).toEqual(['spec.postgresVersion', 'spec.postgisVersion']);
      expect(status.message).toContain('spec.postgresVersion: PostgreSQL major 18 is not supported');
    });

    it('leaves a v1 client in v1 words', async () => {
      const status = await refusedStatus(
        create('v1', {
          ...v1beta1('hub', {}),
          apiVersion: 'geo.example.com/v1',
          spec: { ...v1beta1('hub', {}).spec, postgres: { version: '18.1', postgis: '3.4.2' } },
        }),
      );
      expect(status.causes.map((cause) => cause.field)).toEqual(['spec.postgres.version', 'spec.postgres.postgis']);
    });
  },
);
