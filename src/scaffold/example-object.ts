import { sizeField } from './placeholder-fields.ts';
import type { ScaffoldNames } from './scaffold-names.ts';
import type { ScaffoldShape } from './scaffold-shape.ts';

/** examples/SINGULAR.yaml: an object to try the contract on, with `crdgate check` or `kubectl apply`. */
export function exampleObject(n: ScaffoldNames, shape: ScaffoldShape): string {
  return `apiVersion: ${n.group}/${shape.hub}
kind: ${n.kind}
metadata:
  name: example
spec:
  ${sizeField}: 1Gi
`;
}
