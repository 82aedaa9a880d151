import { isPlainObject } from '../../contract/values/kube-object.ts';
import { compareCrdRevisions } from '../compare/compare-crd-revisions.ts';
import { describeValue } from '../../contract/values/describe-value.ts';
import { elementPath, propertyPath } from '../schema/schema-path.ts';
import { migratePlan } from '../migrate-plan.ts';
import type { CrdRevisionUnderTest } from './revision-under-test.ts';
import { storedObjectFinding, type StoredObjectFinding } from './stored-object-finding.ts';

/**
 * What a revision means for its stored objects as a whole, whatever they hold: the CRD update refused for a
 * stored version it removes, and what the prediction of every object rests on that crdgate cannot see.
 * `conversionKnown`: a conversion is given for a Webhook CRD (a contract's).
 */
export function storedObjectRevisionFindings(
  revision: CrdRevisionUnderTest,
  options: { conversionKnown?: boolean } = {},
): StoredObjectFinding[] {
  const findings: StoredObjectFinding[] = [];
  for (const version of revision.storedVersions.filter((stored) => !revision.new.versions.includes(stored))) {
    const source = revision.storedVersionsKnown ? 'status.storedVersions holds' : 'objects are stored in';
    findings.push(
      storedObjectFinding(
        'storedVersionsRefuseUpdate',
        `${source} ${version}, which the revision removes: the API server refuses the CRD update; ${migratePlan({ resource: revision.name, removed: version, target: revision.new.storage })}`,
        {
          version,
        },
      ),
    );
  }
  const multiple = revision.storedVersionsKnown ? revision.storedVersions.length > 1 : revision.old.versions.length > 1;
  if (multiple) {
    const which = revision.storedVersionsKnown
      ? `status.storedVersions lists ${revision.storedVersions.join(', ')}`
      : 'status.storedVersions is not known';
    findings.push(
      storedObjectFinding(
        'storedVersionAssumed',
        `${which}: each object is taken to be stored in ${revision.old.storage ?? 'the storage version'}`,
      ),
    );
  }
  for (const change of compareCrdRevisions(revision.old.source, revision.new.source)) {
    if (change.rule !== 'defaultRemoved' && change.rule !== 'defaultChanged') continue;
    findings.push(
      storedObjectFinding(
        'readDefaultMayBeUnstored',
        `${change.path}: an object may read the old default ${describeValue(change.old)} without holding it`,
        {
          ...(change.version === undefined ? {} : { version: change.version }),
          ...(change.path === undefined ? {} : { path: change.path }),
          old: change.old,
          ...(change.new === undefined ? {} : { new: change.new }),
        },
      ),
    );
  }
  for (const version of revision.new.crd.versions) {
    const old = revision.old.crd.versions.find((candidate) => candidate.name === version.name);
    if (old === undefined) continue;
    for (const path of newlyDeclared(old.schema, version.schema, '')) {
      findings.push(
        storedObjectFinding(
          'prunedFieldsMayReturn',
          `${path || 'the root'}: declared now, pruned on read before: values etcd still holds there would be read again`,
          { version: version.name, path },
        ),
      );
    }
  }
  if (!options.conversionKnown && (revision.old.conversion === 'Webhook' || revision.new.conversion === 'Webhook')) {
    findings.push(
      storedObjectFinding(
        'conversionUnseen',
        'reads in a version other than the stored one go through the conversion webhook: they are not predicted',
      ),
    );
  }
  return findings;
}

/**
 * The highest fields the new schema declares where the old one pruned: a property the old node neither declared
 * nor kept as unknown, or a node that now keeps unknown fields.
 */
function newlyDeclared(old: unknown, now: unknown, path: string): string[] {
  if (!isPlainObject(now)) return [];
  if (!isPlainObject(old)) return [];
  if (old['x-kubernetes-preserve-unknown-fields'] === true) return [];
  if (now['x-kubernetes-preserve-unknown-fields'] === true) return [path];
  const found: string[] = [];
  const [propsA, propsB] = [
    isPlainObject(old.properties) ? old.properties : {},
    isPlainObject(now.properties) ? now.properties : {},
  ];
  for (const [name, schema] of Object.entries(propsB)) {
    const child = propertyPath(path, name);
    if (!Object.hasOwn(propsA, name)) found.push(child);
    else found.push(...newlyDeclared(propsA[name], schema, child));
  }
  found.push(...newlyDeclared(old.items, now.items, elementPath(path)));
  const [mapA, mapB] = [old.additionalProperties, now.additionalProperties];
  if (mapA === undefined && mapB !== undefined && mapB !== false) found.push(elementPath(path));
  else found.push(...newlyDeclared(mapA, mapB, elementPath(path)));
  return found;
}
