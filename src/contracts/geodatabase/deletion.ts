import { annotation, metadataDeletionRule, objectRef } from '../../index.ts';
import { annotations } from './types.ts';

export const deletionProtection = metadataDeletionRule(function deletionProtection(object) {
  if (annotation(object, annotations.deletionProtection) !== 'true') return undefined;
  const name = object.metadata?.name ?? '';
  const namespace = object.metadata?.namespace ? ` -n ${object.metadata.namespace}` : '';
  return (
    `GeoDatabase ${objectRef(object)} is deletion-protected; to delete it, first remove the protection: ` +
    `kubectl annotate geodatabase ${name}${namespace} ${annotations.deletionProtection}-`
  );
});
