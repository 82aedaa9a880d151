import { isPlainObject } from '../../contract/values/kube-object.ts';
import { describeChange, describeValue } from '../../contract/values/describe-value.ts';
import { changeAt } from '../change.ts';
import type { CrdVersionView } from '../crd-view.ts';
import type { Change } from '../finding.ts';

/**
 * The status and scale subresources of a version both revisions have. The status subresource decides which writes
 * may change an object's status (only /status, once it is on); the scale subresource is what kubectl scale and
 * autoscalers read and write, through the fields its paths name.
 */
export function compareSubresources(a: CrdVersionView, b: CrdVersionView): Change[] {
  return [...compareStatus(a, b), ...compareScale(a, b)];
}

function compareStatus(a: CrdVersionView, b: CrdVersionView): Change[] {
  const [before, after] = [isPlainObject(a.subresources.status), isPlainObject(b.subresources.status)];
  const where = { version: a.name };
  if (!before && after) {
    return [
      changeAt(
        where,
        'statusSubresourceAdded',
        'the status subresource was enabled: writes to the object no longer change its status (only /status does), and a create drops the status it sends',
        { old: false, new: true },
      ),
    ];
  }
  if (before && !after) {
    return [
      changeAt(
        where,
        'statusSubresourceRemoved',
        'the status subresource is gone: writes to /status get 404, and every write to the object changes its status again',
        { old: true, new: false },
      ),
    ];
  }
  return [];
}

const replicaPaths = ['specReplicasPath', 'statusReplicasPath'] as const;

function compareScale(a: CrdVersionView, b: CrdVersionView): Change[] {
  const [before, after] = [a.subresources.scale, b.subresources.scale];
  const where = { version: a.name };
  if (!isPlainObject(before) && isPlainObject(after))
    return [
      changeAt(
        where,
        'scaleSubresourceAdded',
        'a scale subresource was added: kubectl scale and autoscalers can now set the replicas',
        { new: after },
      ),
    ];
  if (isPlainObject(before) && !isPlainObject(after))
    return [
      changeAt(
        where,
        'scaleSubresourceRemoved',
        'the scale subresource is gone: kubectl scale and the autoscalers that use /scale get 404',
        { old: before },
      ),
    ];
  if (!isPlainObject(before) || !isPlainObject(after)) return [];
  const changes: Change[] = [];
  for (const key of replicaPaths) {
    if (before[key] !== after[key]) {
      changes.push(
        changeAt(
          where,
          'scaleReplicasPathChanged',
          `scale ${key} ${describeChange(before[key], after[key])}: /scale reads and writes another field than the one objects hold their replicas in`,
          { old: before[key], new: after[key] },
        ),
      );
    }
  }
  const [selectorA, selectorB] = [before.labelSelectorPath, after.labelSelectorPath];
  if (selectorA === selectorB) return changes;
  const values = { old: selectorA, new: selectorB };
  changes.push(
    selectorA === undefined
      ? changeAt(
          where,
          'scaleLabelSelectorPathAdded',
          `scale labelSelectorPath ${describeValue(selectorB)} added: autoscalers can now find the pods`,
          values,
        )
      : changeAt(
          where,
          'scaleLabelSelectorPathChanged',
          `scale labelSelectorPath ${describeChange(selectorA, selectorB)}: autoscalers select other pods, or none`,
          values,
        ),
  );
  return changes;
}
