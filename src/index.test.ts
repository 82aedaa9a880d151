import { describe, expect, it } from 'vitest';
import * as publicApi from './index.ts';
import * as testingApi from './testing.ts';

// The public API is a promise to contract authors: a value added here is a decision, so it shows up in review.
describe("crdgate's public modules", () => {
  it("'crdgate' exports the contract API and nothing else", () => {
    expect(Object.keys(publicApi).sort()).toEqual(
      [
        'ContractDefinitionError',
        'ConversionError',
        'addQuantities',
        'annotation',
        'apiVersionOf',
        'byDirection',
        'byReleaseStep',
        'cannotRead',
        'compareNumbers',
        'compareQuantities',
        'compareVersions',
        'defineContract',
        'derivedDefault',
        'fieldClassifier',
        'fieldDeletionRule',
        'fieldError',
        'formatBinaryQuantity',
        'formatFieldError',
        'fromCrd',
        'isCannotRead',
        'isPlainObject',
        'isQuantity',
        'isWholeNumber',
        'keyedListClassifier',
        'metadataDeletionRule',
        'objectRef',
        'overlay',
        'parseQuantity',
        'parseVersion',
        'presentFields',
        'putStash',
        'quantityToBigInt',
        'quantityToNumber',
        'readCrdFile',
        'readInteger',
        'readQuantity',
        'readRelease',
        'readString',
        'specMappingConversion',
        'splitFields',
        'staticDefault',
        'takeStash',
        'whenDifferent',
      ].sort(),
    );
  });

  it("'crdgate/testing' exports the tester, the machine's renderer and its self-check, and the test environment", () => {
    expect(Object.keys(testingApi).sort()).toEqual([
      'ControlPlaneUnavailableError',
      'KubeApiError',
      'checkMachine',
      'contractTester',
      'conversionContext',
      'evaluateTransition',
      'machineFormats',
      'renderMachine',
      'startTestEnvironment',
    ]);
  });

  it('exports functions that work without any other import, and error classes callers can catch', () => {
    expect(() =>
      publicApi.defineContract({
        identity: { group: 'x', kind: 'X', plural: 'xs', singular: 'x', scope: 'Namespaced' },
        hub: 'v1',
        versions: [],
        conversions: {},
      }),
    ).toThrow(publicApi.ContractDefinitionError);
  });
});
