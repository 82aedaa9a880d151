import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateCel, judge, loadCrd } from '../api-server-engine/engine.ts';
import { isDns1123Label, isDns1123Subdomain } from '../contract/values/dns-names.ts';
import { formatFieldError } from '../contract/values/field-error.ts';
import { isQuantity } from '../contract/values/quantity.ts';
import { createSchemaCompiler } from '../contract/schema/compile-schema.ts';
import type { JSONSchemaProps } from '../contract/schema/json-schema-props.ts';
import { apiServerRuleFor, describeFormat } from '../contract/schema/kubernetes-formats.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { schemaForApiServer } from './api-server-schema.ts';
import { renderCustomResourceDefinition } from './custom-resource-definition.ts';

// crdgate's own formats as the CRD carries them: CEL rules in crdgate's words, which kube-apiserver (here its engine)
// holds itself, refusing no value crdgate's format accepts.

const quantityRule = {
  rule: 'isQuantity(self)',
  message: 'must be a Kubernetes quantity such as 500m, 64Mi, 2Gi or 1.5e3',
};

describe('schemaForApiServer', () => {
  it("says each format of crdgate's own as a rule, bounded by the length it implies, wherever a rule may stand", () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        size: { type: 'string', format: 'quantity', maxLength: 64 },
        name: {
          type: 'string',
          format: 'dns1123-label',
          maxLength: 100,
          'x-kubernetes-validations': [{ rule: "self != 'admin'" }],
        },
        host: { type: 'string', format: 'dns1123-subdomain' },
        limits: { type: 'object', additionalProperties: { type: 'string', format: 'quantity' } },
        caches: {
          type: 'array',
          items: { type: 'object', properties: { name: { type: 'string', format: 'dns1123-label', maxLength: 20 } } },
        },
        // Formats the API server knows stay; so does one where no rule may stand.
        when: { type: 'string', format: 'date-time' },
        either: { type: 'string', anyOf: [{ format: 'quantity' }, { pattern: '^x$' }] },
      },
    };
    const rendered = schemaForApiServer(schema);
    const label = apiServerRuleFor('dns1123-label')!;
    expect(rendered.properties).toEqual({
      size: { type: 'string', maxLength: 64, 'x-kubernetes-validations': [quantityRule] },
      name: {
        type: 'string',
        maxLength: 63,
        'x-kubernetes-validations': [{ rule: "self != 'admin'" }, { rule: label.rule, message: label.message }],
      },
      host: {
        type: 'string',
        maxLength: 253,
        'x-kubernetes-validations': [
          {
            rule: '!format.dns1123Subdomain().validate(self).hasValue()',
            message: `must be ${describeFormat('dns1123-subdomain')}`,
          },
        ],
      },
      limits: { type: 'object', additionalProperties: { type: 'string', 'x-kubernetes-validations': [quantityRule] } },
      caches: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            name: {
              type: 'string',
              maxLength: 20,
              'x-kubernetes-validations': [{ rule: label.rule, message: label.message }],
            },
          },
        },
      },
      when: { type: 'string', format: 'date-time' },
      either: { type: 'string', anyOf: [{ format: 'quantity' }, { pattern: '^x$' }] },
    });
    // A copy: the contract's schema is left as it was.
    expect(schema.properties!['size']).toEqual({ type: 'string', format: 'quantity', maxLength: 64 });
  });

  it('leaves the schema of a CRD someone else owns as the owner wrote it', () => {
    const geo = geoDatabaseContract();
    const external = { ...geo, crdOwner: 'external' as const };
    const versions = (
      renderCustomResourceDefinition(external, { target: { url: 'https://127.0.0.1:1' } })['spec'] as {
        versions: { schema: { openAPIV3Schema: unknown } }[];
      }
    ).versions;
    expect(versions.map((version) => version.schema.openAPIV3Schema)).toEqual(
      geo.versions.map((version) => version.schema),
    );
  });
});

describe("the rendered rules, in kube-apiserver's CEL (the engine)", () => {
  /** Which values the rule takes, all at once: the rule's `self` is each value of a bound list in turn. */
  const taken = (rule: string, values: readonly string[]): Set<string> => {
    const expr = `values.filter(self, ${rule})`;
    const answer = evaluateCel({
      expr,
      typeEnv: [{ name: 'values', ident: { type: { listType: { elemType: { primitive: 'STRING' } } } } }],
      bindings: { values: { listValue: { values: values.map((value) => ({ stringValue: value })) } } },
    });
    if (answer.compileError !== undefined || answer.evalError !== undefined)
      throw new Error(answer.compileError ?? answer.evalError);
    return new Set(
      (answer.value as { listValue: { values?: { stringValue: string }[] } }).listValue.values?.map(
        (value) => value.stringValue,
      ) ?? [],
    );
  };
  // Quantity-like text: a sign, digits, a point, a suffix or an exponent, each at times missing, doubled or junk;
  // and the boundaries crdgate keeps.
  const quantityText = fc.oneof(
    fc
      .tuple(
        fc.constantFrom('', '', '+', '-', '--'),
        fc.constantFrom('', '0', '1', '12', '999', '1_0'),
        fc.constantFrom('', '', '.', '.5', '.25', '..5'),
        fc.constantFrom(
          '',
          'Ki',
          'Mi',
          'Gi',
          'Ti',
          'Pi',
          'Ei',
          'k',
          'M',
          'G',
          'T',
          'P',
          'E',
          'm',
          'u',
          'n',
          'e3',
          'E-2',
          'e+10',
          'e',
          'ki',
          'GB',
          'Gii',
          'i',
          ' ',
        ),
      )
      .map((parts) => parts.join('')),
    fc
      .array(fc.constantFrom('0', '1', '.', '+', '-', 'e', 'i', 'K', 'M', 'm', ' '), { maxLength: 6 })
      .map((chars) => chars.join('')),
    fc.constantFrom(
      '',
      '-',
      '.',
      'Gi',
      '1e1000',
      '1e1001',
      '1e-1001',
      '1'.repeat(128),
      '1'.repeat(129),
      '0x10',
      '\u0661',
    ),
  );

  it('refuses no quantity crdgate accepts (it takes a few crdgate refuses: digitless, past 128 characters or an exponent of 1000)', () => {
    const values = [...new Set(fc.sample(quantityText, { numRuns: 3_000, seed: 41 }))];
    const byRule = taken(quantityRule.rule, values);
    const accepted = values.filter((value) => isQuantity(value));
    expect(accepted.length).toBeGreaterThan(200);
    expect(accepted.filter((value) => !byRule.has(value))).toEqual([]);
    // What the rule takes and crdgate refuses: a number without digits, past 128 characters, or an exponent past 1000.
    const digitless = (value: string) => !/[0-9]/.test(/^[+-]?[0-9]*[.]?[0-9]*/.exec(value)![0]);
    const lenient = values.filter((value) => !isQuantity(value) && byRule.has(value));
    expect(
      lenient.filter((value) => !digitless(value) && value.length <= 128 && !/e[+-]?100[1-9]$/i.test(value)),
    ).toEqual([]);
    expect(values.filter((value) => !isQuantity(value) && !byRule.has(value)).length).toBeGreaterThan(200);
  });

  it('takes exactly the DNS names crdgate takes', () => {
    const label = fc.oneof(
      fc.array(fc.constantFrom('a', 'z', '0', '9', '-'), { minLength: 1, maxLength: 8 }).map((chars) => chars.join('')),
      fc.constantFrom('a', 'tiles', 'tiles-1', 'Tiles_1', 'x\u00fc', '-a', 'a-', ''),
      fc.integer({ min: 60, max: 70 }).map((length) => 'a'.repeat(length)),
    );
    const nameText = fc.array(label, { minLength: 1, maxLength: 5 }).map((labels) => labels.join('.'));
    const values = [...new Set(fc.sample(nameText, { numRuns: 2_000, seed: 42 }))];
    for (const [format, crdgate] of [
      ['dns1123-label', isDns1123Label],
      ['dns1123-subdomain', isDns1123Subdomain],
    ] as const) {
      const { rule, maxLength } = apiServerRuleFor(format)!;
      const byRule = taken(rule, values);
      // The length the rendered schema bounds the string to, then the rule.
      const disagree = values.filter((value) => crdgate(value) !== (value.length <= maxLength! && byRule.has(value)));
      expect(disagree, format).toEqual([]);
      expect(values.filter(crdgate).length, format).toBeGreaterThan(50);
      expect(values.filter((value) => !crdgate(value)).length, format).toBeGreaterThan(50);
    }
  });

  it("refuse the invalid example's size and cache name through the API server's own pipeline, in crdgate's words", () => {
    const crd = loadCrd(
      renderCustomResourceDefinition(geoDatabaseContract(), {
        target: { service: { namespace: 'crdgate-system', name: 'crdgate', port: 443 } },
      }),
    );
    expect(crd.refusal).toEqual([]);
    const object = {
      apiVersion: 'geo.example.com/v1',
      kind: 'GeoDatabase',
      metadata: { name: 'broken', namespace: 'maps' },
      spec: {
        postgres: { version: '16.4', postgis: '3.4.2' },
        storage: { size: '50GB' },
        caches: [{ name: 'Tiles_1', memory: '1Gi' }],
      },
    };
    const judged = judge(crd, { operation: 'CREATE', object, namespace: 'maps' });
    expect(judged.allowed).toBe(false);
    const refused = [
      `spec.storage.size: Invalid value: "50GB": must be ${describeFormat('quantity')}`,
      `spec.caches[0].name: Invalid value: "Tiles_1": must be ${describeFormat('dns1123-label')}`,
    ];
    // In either order: the API server's CEL validation walks the object's fields as a Go map, in no fixed order.
    expect(judged.causes.map(formatFieldError).sort()).toEqual([...refused].sort());
    // crdgate's own validation says exactly the same.
    const validate = createSchemaCompiler().compile(geoDatabaseContract().versions[0]!.schema);
    expect(validate(object).map(formatFieldError)).toEqual(expect.arrayContaining(refused));
  });
});
