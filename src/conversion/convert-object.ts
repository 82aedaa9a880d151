import { apiVersionOf, type Contract, type ConversionContext } from '../contract/contract-definition.ts';
import { objectRef, splitApiVersion, type KubeObject } from '../contract/values/kube-object.ts';
import { ConversionError } from './conversion-error.ts';
import { conversionResultProblem } from './conversion-result-problem.ts';

/**
 * Converts `object` to `desiredApiVersion`: a spoke goes to the hub and from there to the target spoke, never from
 * spoke to spoke, so n versions need n - 1 conversions, not n^2.
 * An object already in the desired version is returned as it is. Otherwise the result may share unchanged parts
 * (status, metadata) with `object`: neither is modified, and callers must not modify them either.
 * Every version the contract declares converts, served or not: objects stored in a version that is no longer
 * served must still be read.
 */
export function convertObject(contract: Contract, object: KubeObject, desiredApiVersion: string): KubeObject {
  const from = versionOf(contract, object, object.apiVersion);
  const to = versionOf(contract, object, desiredApiVersion);
  if (object.kind !== contract.identity.kind) {
    throw new ConversionError(
      'WRONG_KIND',
      `cannot convert ${describe(object)}: the contract is for ${contract.identity.kind}`,
    );
  }
  if (from === to) return object;
  const what = `${describe(object)} from ${object.apiVersion} to ${desiredApiVersion}`;
  // A contract that does not own its CRD need not convert: the API server converts through the owner's webhook.
  for (const version of [from, to]) {
    if (version !== contract.hub && contract.conversions[version] === undefined) {
      throw new ConversionError(
        'CONVERTED_BY_OWNER',
        `cannot convert ${what}: ${contract.identity.plural}.${contract.identity.group} is converted by its CRD's owner, and the contract has no conversion of ${version}`,
      );
    }
  }
  // defineContract guarantees a conversion for every version but the hub (unless the CRD is someone else's), and none for the hub.
  const hub =
    from === contract.hub
      ? object
      : checkedStep(what, object, apiVersionOf(contract, contract.hub), (spoke) =>
          contract.conversions[from]!.toHub(spoke, conversionContext(contract, from)),
        );
  return to === contract.hub
    ? hub
    : checkedStep(what, hub, desiredApiVersion, (hubObject) =>
        contract.conversions[to]!.fromHub(hubObject, conversionContext(contract, to)),
      );
}

/** What the conversion of `version` is told of its contract. */
export function conversionContext(contract: Contract, version: string): ConversionContext {
  return {
    hubApiVersion: apiVersionOf(contract, contract.hub),
    spokeApiVersion: apiVersionOf(contract, version),
    annotation: contract.conversionAnnotation,
  };
}

/** The object in the contract's hub version, the one validation, defaulting and the rules are written against. */
export function toHub(contract: Contract, object: KubeObject): KubeObject {
  return convertObject(contract, object, apiVersionOf(contract, contract.hub));
}

/** One hop (spoke to hub, or hub to spoke), with the checks that keep a contract bug from corrupting objects. */
function checkedStep(
  what: string,
  source: KubeObject,
  stepApiVersion: string,
  convert: (object: KubeObject) => KubeObject,
): KubeObject {
  let result: KubeObject;
  try {
    result = convert(source);
  } catch (error) {
    if (error instanceof ConversionError) throw error;
    throw new ConversionError('CONVERSION_FAILED', `cannot convert ${what}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const problem = conversionResultProblem(source, result, stepApiVersion);
  if (problem !== undefined) {
    throw new ConversionError(
      'INVALID_CONVERSION_RESULT',
      `cannot convert ${what}: ${problem} (a bug in the contract)`,
    );
  }
  return result;
}

/** The version name of `apiVersion`, which must be one of the contract's. */
function versionOf(contract: Contract, object: KubeObject, apiVersion: unknown): string {
  const resource = `${contract.identity.plural}.${contract.identity.group}`;
  if (typeof apiVersion !== 'string') {
    throw new ConversionError('UNKNOWN_VERSION', `cannot convert ${describe(object)}: it has no apiVersion`);
  }
  const { group, version } = splitApiVersion(apiVersion);
  if (group !== contract.identity.group) {
    throw new ConversionError(
      'WRONG_GROUP',
      `cannot convert ${describe(object)}: ${apiVersion} is not in the group of ${resource}`,
    );
  }
  if (!contract.versions.some((v) => v.name === version)) {
    const known = contract.versions.map((v) => v.name).join(', ');
    throw new ConversionError(
      'UNKNOWN_VERSION',
      `cannot convert ${describe(object)}: ${apiVersion} is not a version of ${resource} (versions: ${known})`,
    );
  }
  return version;
}

/** `GeoDatabase maps/db`, for messages that reach whoever ran kubectl. */
function describe(object: KubeObject): string {
  return `${String(object.kind)} ${objectRef(object)}`;
}
