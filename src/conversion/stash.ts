import { isPlainObject, objectRef, type KubeObject } from '../contract/values/kube-object.ts';
import { annotationsSize, maxAnnotationsBytes } from '../contract/annotations-size.ts';
import { ConversionError } from './conversion-error.ts';

/**
 * What a conversion down could not put in the older version's fields, as a JSON object whose fields the contract
 * chooses (except {@link replacedAnnotationField}).
 */
export type LostData = Record<string, unknown>;

/**
 * The stash takes the annotation's place, so a value the object already had under the stash's annotation (a hub
 * object someone wrote it on by hand) is lost data too; it is kept under this field and put back on the way up.
 */
export const replacedAnnotationField = 'replacedAnnotation';

/**
 * Keeps `lost` in the annotation `key` of `object`, the object a conversion down has just built (with the metadata
 * of the object it came from). Nothing lost: no annotation. The stash is compact JSON.
 * Throws STASH_TOO_LARGE when the annotations would outgrow what the API server accepts: dropping the data instead
 * would lose it silently.
 */
export function putStash(object: KubeObject, key: string, lost: LostData): KubeObject {
  if (Object.hasOwn(lost, replacedAnnotationField)) {
    throw new Error(`the field ${replacedAnnotationField} of lost data is reserved for the stash itself`);
  }
  const annotations = isPlainObject(object.metadata?.annotations) ? object.metadata.annotations : {};
  const replaced = annotations[key];
  const stash = replaced === undefined ? lost : { ...lost, [replacedAnnotationField]: replaced };
  if (Object.keys(stash).length === 0) return object;
  const text = JSON.stringify(stash);
  const withStash = { ...annotations, [key]: text };
  const size = annotationsSize(withStash);
  if (size > maxAnnotationsBytes) {
    throw new ConversionError(
      'STASH_TOO_LARGE',
      `cannot convert ${object.kind ?? 'object'} ${objectRef(object)} to ${object.apiVersion}: what that version ` +
        `cannot hold (${Buffer.byteLength(text, 'utf8')} bytes in the annotation ${key}) would bring the ` +
        `annotations to ${size} bytes, over the API server's limit of ${maxAnnotationsBytes}`,
    );
  }
  return { ...object, metadata: { ...object.metadata, annotations: withStash } };
}

/**
 * Takes the stash out of `object`, an object about to be converted up: the lost data (undefined when there is none,
 * or when the annotation is not a stash: a value that cannot be read back is not data this object lost) and the
 * object without the annotation, or with the value the stash had replaced.
 * An annotations map left empty is removed: the API server does not tell an empty map from an absent one.
 */
export function takeStash(object: KubeObject, key: string): { object: KubeObject; lost: LostData | undefined } {
  const annotations = object.metadata?.annotations;
  if (!isPlainObject(annotations) || !Object.hasOwn(annotations, key)) return { object, lost: undefined };
  const { [key]: text, ...others } = annotations;
  const stash = parseStash(text);
  const { [replacedAnnotationField]: replaced, ...lost } = stash ?? {};
  const restored = replaced === undefined ? others : { ...others, [key]: replaced };
  const metadata = { ...object.metadata };
  if (Object.keys(restored).length === 0) delete metadata.annotations;
  else metadata.annotations = restored as Record<string, string>;
  return { object: { ...object, metadata }, lost: stash === undefined ? undefined : lost };
}

function parseStash(text: unknown): LostData | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isPlainObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
