import { changeAt } from '../change.ts';
import type { CrdView } from '../crd-view.ts';
import type { Change } from '../finding.ts';
import type { CrdRevisionRule } from '../rules.ts';
import { compareSchemas } from '../schema/compare-schemas.ts';
import { compareVersionAge } from '../../contract/values/version-age.ts';

/** One difference between two served versions of one revision, as the schema rule that finds it names it. */
interface Difference {
  older: string;
  newer: string;
  change: Change;
  /** A field the newer version has and the older lacks (the schema rules walk from the older to the newer only). */
  onlyInNewer: boolean;
}

/**
 * crdify's served-version check: the schemas of the new revision's served versions compared pair by pair, each
 * older version against each newer one, by the rules that compare one version's revisions, less the differences the
 * old revision's served versions had already. Where the API server converts by relabelling (strategy None), an
 * object written through one version is read and written back through the other: a field the other lacks is pruned
 * from it, a bound the other tightens refuses it. With a conversion webhook the converter is to bridge them, which
 * is worth a warning. Descriptions are left out: versions word their fields as they please.
 */
export function compareServedVersions(old: CrdView, now: CrdView): Change[] {
  const known = new Set(servedDifferences(old).map(differenceKey));
  const rule: CrdRevisionRule =
    now.conversion.strategy === 'Webhook' ? 'servedVersionDifferenceConverted' : 'servedVersionDifference';
  return servedDifferences(now)
    .filter((difference) => !known.has(differenceKey(difference)))
    .map(({ older, newer, change, onlyInNewer }) => {
      const where = { version: newer, ...(change.path === undefined ? {} : { path: change.path }) };
      const what = onlyInNewer
        ? `${change.path}: in ${newer}, not in ${older} (a write through ${older} prunes it)`
        : change.message;
      // The older version's value is the old one, the newer's the new, whichever way the schema rule compared them.
      const values = onlyInNewer ? { new: change.old } : { old: change.old, new: change.new };
      return {
        ...changeAt(where, rule, `${older} → ${newer}: ${what}`, values),
        comparedWith: older,
        difference: change.rule,
        ...(change.transition === undefined ? {} : { transition: change.transition }),
      };
    });
}

function servedDifferences(view: CrdView): Difference[] {
  const served = view.versions.filter((version) => version.served).sort((a, b) => compareVersionAge(a.name, b.name));
  return served.flatMap((older, i) =>
    served.slice(i + 1).flatMap((newer) => {
      const [a, b] = [older.schema ?? {}, newer.schema ?? {}];
      const pair = { older: older.name, newer: newer.name };
      return [
        ...compareSchemas(a, b, newer.name)
          .filter((change) => change.rule !== 'description')
          .map((change) => ({ ...pair, change, onlyInNewer: false })),
        ...compareSchemas(b, a, older.name)
          .filter((change) => change.rule === 'existingFieldRemoval')
          .map((change) => ({ ...pair, change, onlyInNewer: true })),
      ];
    }),
  );
}

const differenceKey = ({ older, newer, change, onlyInNewer }: Difference) =>
  JSON.stringify([older, newer, onlyInNewer, change.rule, change.path, change.old, change.new]);
