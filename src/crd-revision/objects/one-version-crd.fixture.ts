/**
 * A CRD of one served and stored version in the group x.example.com, with `schema` as its openAPIV3Schema and
 * `version` merged into that version (subresources, say): for tests of what one schema does to one object.
 */
export function oneVersionCrd(
  kind: string,
  schema: Record<string, unknown>,
  version: Record<string, unknown> = {},
): Record<string, unknown> {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.x.example.com` },
    spec: {
      group: 'x.example.com',
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema }, ...version }],
    },
  };
}
