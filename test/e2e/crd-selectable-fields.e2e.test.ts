import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCrd } from '../../src/api-server-engine/engine.ts';
import { widgetCrd } from '../../src/crd-revision/crd-revision.fixture.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { restClient, type Rest } from './support/raw-api.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

// apiextensions' v1 → internal conversion lifts selectableFields to spec.selectableFields when every version has the
// same ones, and lifts the schema only when every version has the same schema; the CRD validation then refuses
// top-level selectableFields without a top-level schema. The engine runs that conversion and validation offline
// (it is why widgetCrd gives its v1 alone selectable fields): kube-apiserver must answer the same, or the engine
// refuses CRDs the cluster takes.

type Crd = ReturnType<typeof widgetCrd>;

function withSelectableFields(crd: Crd, versions: Array<{ name: string; fields: string[] }>): Crd {
  for (const version of crd.spec.versions as Array<Record<string, unknown>>) {
    const fields = versions.find((v) => v.name === version.name)?.fields ?? [];
    if (fields.length > 0) version.selectableFields = fields.map((jsonPath) => ({ jsonPath }));
    else delete version.selectableFields;
  }
  return crd;
}

/** The same schema in every version: widgetCrd's differ only in their root description. */
function sameSchemas(crd: Crd): Crd {
  const [first] = crd.spec.versions;
  for (const version of crd.spec.versions) version.schema = structuredClone(first!.schema);
  return crd;
}

describe.skipIf(!controlPlane)(
  'selectableFields in several versions: the engine and kube-apiserver on creating the CRD',
  () => {
    const cp = controlPlane as ProvidedControlPlane;
    let api: Rest;

    beforeAll(() => {
      api = restClient(cp.kubeconfigPath);
    });
    afterAll(() => api?.close());

    /** `field: message` of every cause the API server refuses the CRD with (a dry run: nothing is installed). */
    async function apiServerRefusal(crd: Crd): Promise<string[]> {
      const response = await api.send(
        'POST',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All',
        crd,
      );
      if (response.status === 201) return [];
      expect(response.status, response.text).toBe(422);
      const causes =
        (response.body as { details?: { causes?: { field?: string; message?: string }[] } }).details?.causes ?? [];
      return causes.map((cause) => `${cause.field ?? ''}: ${cause.message ?? ''}`).sort();
    }

    const engineRefusal = (crd: Crd) =>
      loadCrd(crd)
        .refusal.map((problem) => `${problem.field}: ${problem.message}`)
        .sort();

    it.each([
      {
        name: 'the same fields in every version, schemas that differ',
        crd: () =>
          withSelectableFields(widgetCrd(), [
            { name: 'v1beta1', fields: ['.spec.mode'] },
            { name: 'v1', fields: ['.spec.mode'] },
          ]),
        refused: true,
      },
      {
        name: 'the same fields in every version, the same schema',
        crd: () =>
          withSelectableFields(sameSchemas(widgetCrd()), [
            { name: 'v1beta1', fields: ['.spec.mode'] },
            { name: 'v1', fields: ['.spec.mode'] },
          ]),
        refused: false,
      },
      {
        name: 'fields in one version only, schemas that differ',
        crd: () => withSelectableFields(widgetCrd(), [{ name: 'v1', fields: ['.spec.mode'] }]),
        refused: false,
      },
      {
        name: 'other fields per version, schemas that differ',
        crd: () =>
          withSelectableFields(widgetCrd(), [
            { name: 'v1beta1', fields: ['.spec.name'] },
            { name: 'v1', fields: ['.spec.mode'] },
          ]),
        refused: false,
      },
    ])('$name: both answer alike', async ({ crd, refused }) => {
      const fromApiServer = await apiServerRefusal(crd());
      expect(fromApiServer.length > 0).toBe(refused);
      expect(engineRefusal(crd())).toEqual(fromApiServer);
    });
  },
);
