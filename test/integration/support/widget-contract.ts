import { defineContract, fieldError, type Contract } from '../../../src/index.ts';

// A user's contract, written against crdgate's public API only, for tests that load it with `--contract`.

export interface WidgetSpec {
  size: number;
  color?: string;
}

export default function widgetContract(): Contract<WidgetSpec> {
  return defineContract<WidgetSpec>({
    identity: { group: 'toys.example.com', kind: 'Widget', plural: 'widgets', singular: 'widget', scope: 'Namespaced' },
    hub: 'v1',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              required: ['size'],
              properties: { size: { type: 'integer', minimum: 1 }, color: { type: 'string' } },
            },
          },
        },
      },
    ],
    conversions: {},
    invariants: [
      // A contract bug, for the tests of what crdgate does when a rule throws.
      (widget) => {
        if (widget.spec?.color === 'explode') throw new Error('the widget rule exploded');
        return [];
      },
      (widget) =>
        widget.spec?.color === 'gold' && widget.spec.size > 3
          ? [fieldError('spec.size', 'FieldValueInvalid', 'a gold widget is at most 3 wide')]
          : [],
    ],
  });
}
