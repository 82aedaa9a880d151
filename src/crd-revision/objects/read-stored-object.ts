import { judge, readAsStored } from '../../api-server-engine/engine.ts';
import { inKeyOrderOf } from '../../api-server-engine/key-order.ts';
import { splitApiVersion, type KubeObject } from '../../contract/values/kube-object.ts';
import type { Refusal } from './outcome.ts';
import { refusalOf } from './refusal-of.ts';
import type { RevisionSide } from './revision-under-test.ts';

/**
 * Converts an object (already read in the version it is stored in) to another version of its CRD, as the CRD's
 * conversion webhook would; throws to say the webhook would fail. Needed for a CRD whose strategy is Webhook.
 */
export type ObjectConverter = (object: KubeObject, toVersion: string) => KubeObject;

/** A read whose answer crdgate cannot know: the conversion webhook of a kind it has no contract for. */
export class ConversionUnknownError extends Error {
  override name = 'ConversionUnknownError';
}

/** A GET's answer with the object as the API server holds it, server-set metadata and all (what a PUT sends back). */
export type RawRead = { object: KubeObject } | { refused: Refusal };

/**
 * What a GET in `version` answers for `stored`, an object as etcd holds it (its apiVersion the version it is
 * stored in), as kube-apiserver v1.36's custom-resource storage reads it (customresource_handler.go): decoded and
 * pruned in the stored version's schema, defaulted there (the versioning codec defaults before it converts),
 * converted (strategy None: only apiVersion changes), then pruned in the target version's schema, not defaulted.
 * A version the CRD does not serve answers 404; a failed conversion 500.
 */
export function readStoredObject(
  side: RevisionSide,
  stored: KubeObject,
  version: string,
  convert?: ObjectConverter,
): RawRead {
  if (!side.served.includes(version)) return { refused: { code: 404, causes: [] } };
  return readInVersion(side, stored, version, convert);
}

/** readStoredObject whether or not the version is served: what the object holds as that version's schema reads it. */
export function readInVersion(
  side: RevisionSide,
  stored: KubeObject,
  version: string,
  convert?: ObjectConverter,
): RawRead {
  const storedVersion = splitApiVersion(String(stored.apiVersion)).version;
  // A version the CRD lacks has no schema to decode in, and the converter refuses it ("invalid group/version").
  if (!side.versions.includes(storedVersion)) return { refused: { code: 500, causes: [] } };
  const decoded = readAsStored(side.reading, stored);
  if (!decoded.allowed || !decoded.object) return { refused: refusalOf(decoded) };
  if (version === storedVersion) return { object: inKeyOrderOf(decoded.object, stored) };
  let converted: KubeObject;
  if (side.conversion === 'None') {
    converted = { ...decoded.object, apiVersion: `${side.group}/${version}` };
  } else {
    if (convert === undefined)
      throw new ConversionUnknownError(
        `a read of ${side.kind} in ${version} goes through the CRD's conversion webhook, which crdgate cannot run for a kind no contract owns`,
      );
    try {
      converted = convert(decoded.object, version);
    } catch {
      return { refused: { code: 500, causes: [] } };
    }
  }
  // schemaCoercingConverter: pruned in the target version's schema (the `pruning` CRD has no defaults), its
  // ObjectMeta coerced without dropping anything.
  const pruned = judge(side.pruning, {
    operation: 'CREATE',
    object: converted,
    decodeOnly: true,
    fieldValidation: 'Ignore',
  });
  if (!pruned.allowed || !pruned.object) return { refused: refusalOf(pruned) };
  return { object: inKeyOrderOf(pruned.object, stored) };
}
