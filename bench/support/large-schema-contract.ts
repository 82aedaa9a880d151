import { defineContract, type Contract } from '../../src/index.ts';
import { largeStructuralSchema } from '../../src/contract/schema/large-schema.fixture.ts';

// A kind whose schema is the size of the largest operator CRDs, for `crdgate serve --contract` in the memory
// benchmarks (hostile-memory.ts --large-schema).

export const largeSchemaKind = { group: 'large.example.com', version: 'v1', kind: 'Large', plural: 'larges' } as const;

export default function largeSchemaContract(): Contract {
  return defineContract({
    identity: {
      group: largeSchemaKind.group,
      kind: largeSchemaKind.kind,
      plural: largeSchemaKind.plural,
      singular: 'large',
      scope: 'Namespaced',
    },
    hub: largeSchemaKind.version,
    versions: [
      {
        name: largeSchemaKind.version,
        served: true,
        storage: true,
        schema: largeStructuralSchema(),
        subresources: { status: {} },
      },
    ],
    conversions: {},
  });
}
