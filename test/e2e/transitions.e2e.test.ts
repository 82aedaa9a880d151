import { describe, expect, it } from 'vitest';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { useCrdgateInFront } from './support/crdgate-in-front.ts';
import { geoDatabases, validGeoDatabase } from './support/geodatabases.ts';
import { kubectl, warningLines } from './support/kubectl.ts';
import { auditedWrites } from './support/audit-log.ts';
import { validatingWebhookName } from '../../src/render/webhook-names.ts';
import { geoDatabaseContract } from '../../src/contracts/geodatabase/index.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

describe.skipIf(!controlPlane)('the FSA behind the real API server', () => {
  const cp = controlPlane as ProvidedControlPlane;
  const scene = useCrdgateInFront(cp, 'crdgate-e2e-fsa');
  const create = (name: string) =>
    scene().customObjects.createNamespacedCustomObject({
      ...geoDatabases,
      namespace: scene().namespace,
      body: validGeoDatabase(scene().namespace, name),
    });
  const get = (name: string): Promise<any> =>
    scene().customObjects.getNamespacedCustomObject({ ...geoDatabases, namespace: scene().namespace, name });
  const patchSpec = (name: string, patch: object) =>
    kubectl(cp, ['patch', 'geodatabase', name, '-n', scene().namespace, '--type=merge', '-p', JSON.stringify(patch)]);
  // The operator's move: status.phase is written through the status subresource only.
  const setPhase = (name: string, phase: string) =>
    kubectl(cp, [
      'patch',
      'geodatabase',
      name,
      '-n',
      scene().namespace,
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status: { phase } }),
    ]);

  it('refuses an unsupported change once the database is Ready, and lets a supported one through', async () => {
    await create('lifecycle');
    const ready = await setPhase('lifecycle', 'Ready');
    expect(ready).toMatchObject({ exitCode: 0 });
    expect((await get('lifecycle')).status.phase).toBe('Ready');

    const shrink = await patchSpec('lifecycle', { spec: { storage: { size: '10Gi' } } });
    expect(shrink.exitCode).toBe(1);
    expect(shrink.stderr).toContain(
      'spec.storage.size: shrinking storage from 20Gi to 10Gi is unsupported: volumes cannot shrink',
    );
    expect((await get('lifecycle')).spec.storage.size).toBe('20Gi');

    const grow = await patchSpec('lifecycle', { spec: { storage: { size: '40Gi' } } });
    expect(grow).toMatchObject({ exitCode: 0 });
    expect((await get('lifecycle')).spec.storage.size).toBe('40Gi');
  });

  it('refuses a change the current state forbids, and the override annotation pushes it through with a warning', async () => {
    await create('upgrading');
    expect(await setPhase('upgrading', 'Provisioning')).toMatchObject({ exitCode: 0 });
    expect(await setPhase('upgrading', 'Ready')).toMatchObject({ exitCode: 0 });
    expect(await patchSpec('upgrading', { spec: { postgres: { version: '16.6' } } })).toMatchObject({ exitCode: 0 });
    expect(await setPhase('upgrading', 'Upgrading')).toMatchObject({ exitCode: 0 });

    const refused = await patchSpec('upgrading', { spec: { postgres: { version: '16.8' } } });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(
      'minor upgrade 16.6 -> 16.8 is not allowed while the database is Upgrading (allowed in: Ready)',
    );

    const overridden = await patchSpec('upgrading', {
      metadata: { annotations: { 'geo.example.com/override-transitions': 'INC-17: CVE fix cannot wait' } },
      spec: { postgres: { version: '16.8' } },
    });
    expect(overridden.exitCode).toBe(0);
    expect(warningLines(overridden).join('\n')).toContain('INC-17');
    expect((await get('upgrading')).spec.postgres.version).toBe('16.8');
  });

  it('takes an override for the one write that sets it: a stale one refuses, a fresh one allows with its audit annotation, removing it allows nothing new', async () => {
    const override = 'geo.example.com/override-transitions';
    await create('vouched');
    expect(await setPhase('vouched', 'Provisioning')).toMatchObject({ exitCode: 0 });
    expect(await setPhase('vouched', 'Ready')).toMatchObject({ exitCode: 0 });
    expect(await setPhase('vouched', 'Upgrading')).toMatchObject({ exitCode: 0 });

    const fresh = await patchSpec('vouched', {
      metadata: { annotations: { [override]: 'INC-21: CVE fix cannot wait' } },
      spec: { postgres: { version: '16.6' } },
    });
    expect(fresh.exitCode, fresh.stderr).toBe(0);
    expect(warningLines(fresh).join('\n')).toContain('INC-21');

    // The annotation is still on the object: it authorised the write above and nothing since.
    const stale = await patchSpec('vouched', { spec: { postgres: { version: '16.8' } } });
    expect(stale.exitCode).toBe(1);
    expect(stale.stderr).toContain(
      'minor upgrade 16.6 -> 16.8 is not allowed while the database is Upgrading (allowed in: Ready); the geo.example.com/override-transitions annotation on the object ' +
        'authorised only the write that set it: to override this change, give the annotation a new reason in the write that makes it',
    );
    expect((await get('vouched')).spec.postgres.version).toBe('16.6');

    const removed = await patchSpec('vouched', {
      metadata: { annotations: { [override]: null } },
      spec: { postgres: { version: '16.8' } },
    });
    expect(removed.exitCode).toBe(1);
    expect(removed.stderr).toContain(
      'minor upgrade 16.6 -> 16.8 is not allowed while the database is Upgrading (allowed in: Ready)',
    );
    expect(removed.stderr).not.toContain('authorised only the write that set it');

    const renewed = await patchSpec('vouched', {
      metadata: { annotations: { [override]: 'INC-22: the second CVE' } },
      spec: { postgres: { version: '16.8' } },
    });
    expect(renewed.exitCode, renewed.stderr).toBe(0);
    expect((await get('vouched')).spec.postgres.version).toBe('16.8');

    // The API server records the webhook's audit annotation under the webhook's name, for the overriding writes alone.
    const key = `${validatingWebhookName(geoDatabaseContract())}/override-transitions`;
    const writes = await auditedWrites(cp, {
      apiGroup: 'geo.example.com',
      resource: 'geodatabases',
      namespace: scene().namespace,
      name: 'vouched',
    });
    const patches = writes.filter((event) => event.verb === 'patch' && event.objectRef?.subresource === undefined);
    expect(
      patches.map((event) => [event.responseStatus?.code, event.annotations?.[key]?.match(/INC-\d+/)?.[0]]),
    ).toEqual([
      [200, 'INC-21'],
      [403, undefined],
      [403, undefined],
      [200, 'INC-22'],
    ]);
    expect(patches[0]!.annotations![key]).toContain(
      'overridden while the database is Upgrading: postgres.minor at spec.postgres.version (minor upgrade 16.4 -> 16.6)',
    );
  });

  it('warns about a scale-down, and kubectl shows the warning', async () => {
    await create('replicas');
    expect(await setPhase('replicas', 'Ready')).toMatchObject({ exitCode: 0 });
    expect(await patchSpec('replicas', { spec: { readReplicas: 3 } })).toMatchObject({ exitCode: 0 });

    const scaledDown = await patchSpec('replicas', { spec: { readReplicas: 1 } });
    expect(scaledDown.exitCode).toBe(0);
    expect(warningLines(scaledDown)).toContain('Warning: spec.readReplicas: reducing read replicas from 3 to 1');
    expect((await get('replicas')).spec.readReplicas).toBe(1);
  });

  it('warns, but allows, an operator phase move that the machine does not expect', async () => {
    await create('jumpy');
    const jump = await setPhase('jumpy', 'Upgrading');
    expect(jump.exitCode).toBe(0);
    expect(warningLines(jump).join('\n')).toContain('Pending -> Upgrading');
  });
});
