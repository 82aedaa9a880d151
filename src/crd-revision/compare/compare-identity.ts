import { jsonEqual } from '../../contract/values/json-equal.ts';
import { isPlainObject } from '../../contract/values/kube-object.ts';
import { describeChange } from '../../contract/values/describe-value.ts';
import { changeAt } from '../change.ts';
import type { CrdView } from '../crd-view.ts';
import type { Change } from '../finding.ts';
import type { CrdRevisionRule } from '../rules.ts';

/** What the CRD is called and where its objects live: scope, names, and how they are converted between versions. */
export function compareIdentity(old: CrdView, now: CrdView): Change[] {
  const changes: Change[] = [];
  if (!jsonEqual(old.scope, now.scope))
    changes.push(
      changeAt({}, 'scope', `scope ${describeChange(old.scope, now.scope)}`, {
        old: old.scope,
        new: now.scope,
      }),
    );
  const singleNames: Array<[string, CrdRevisionRule]> = [
    ['kind', 'kindChanged'],
    ['listKind', 'listKindChanged'],
    ['plural', 'pluralChanged'],
    ['singular', 'singularChanged'],
  ];
  for (const [key, rule] of singleNames) {
    const [a, b] = [effectiveName(old, key), effectiveName(now, key)];
    if (!jsonEqual(a, b))
      changes.push(
        changeAt({}, rule, `spec.names.${key} ${describeChange(a, b)}`, {
          old: a,
          new: b,
        }),
      );
  }
  changes.push(
    ...compareNameList(old, now, 'shortNames', 'shortNamesRemoved', 'shortNamesAdded'),
    ...compareNameList(old, now, 'categories', 'categoriesRemoved', 'categoriesAdded'),
  );
  changes.push(...compareConversion(old, now));
  return changes;
}

/** The API server fills listKind (kind + List) and singular (the kind in lower case) when a CRD leaves them out. */
function effectiveName(view: CrdView, key: string): unknown {
  const written = view.names[key];
  if (written !== undefined && written !== '') return written;
  const kind = view.names.kind;
  if (typeof kind !== 'string') return undefined;
  if (key === 'listKind') return `${kind}List`;
  if (key === 'singular') return kind.toLowerCase();
  return undefined;
}

function compareNameList(
  old: CrdView,
  now: CrdView,
  key: 'shortNames' | 'categories',
  removed: CrdRevisionRule,
  added: CrdRevisionRule,
): Change[] {
  const list = (view: CrdView) =>
    Array.isArray(view.names[key])
      ? (view.names[key] as unknown[]).filter((name): name is string => typeof name === 'string')
      : [];
  const [a, b] = [list(old), list(now)];
  const gone = a.filter((name) => !b.includes(name));
  const put = b.filter((name) => !a.includes(name));
  return [
    ...(gone.length > 0 ? [changeAt({}, removed, `spec.names.${key} lost ${gone.join(', ')}`, { old: gone })] : []),
    ...(put.length > 0 ? [changeAt({}, added, `spec.names.${key} gained ${put.join(', ')}`, { new: put })] : []),
  ];
}

function compareConversion(old: CrdView, now: CrdView): Change[] {
  const strategy = (view: CrdView) => view.conversion.strategy ?? 'None';
  const [a, b] = [strategy(old), strategy(now)];
  if (a === 'Webhook' && b !== 'Webhook')
    return versionsInPlay(old, now) < 2
      ? []
      : [
          changeAt(
            {},
            'conversionWebhookRemoved',
            `conversion strategy ${describeChange(a, b)}: objects are relabelled between versions, not converted`,
            { old: a, new: b },
          ),
        ];
  if (a !== 'Webhook' && b === 'Webhook')
    return [
      changeAt(
        {},
        'conversionWebhookAdded',
        `conversion strategy ${describeChange(a, b)}: reads in another version than the stored one need the webhook`,
        { old: a, new: b },
      ),
    ];
  if (a === 'Webhook' && !jsonEqual(withoutCaBundle(old.conversion.webhook), withoutCaBundle(now.conversion.webhook))) {
    return [
      changeAt(
        {},
        'conversionWebhookChanged',
        'the conversion webhook changed (client configuration or review versions)',
        { old: old.conversion.webhook, new: now.conversion.webhook },
      ),
    ];
  }
  return [];
}

/**
 * How many of the new revision's versions an object can be in or be read in: those it serves, and those objects may
 * be stored in (status.storedVersions, the old storage version). With one, nothing is ever converted, and the
 * conversion strategy decides nothing.
 */
function versionsInPlay(old: CrdView, now: CrdView): number {
  const stored = new Set([...old.storedVersions, ...old.versions.filter((v) => v.storage).map((v) => v.name)]);
  return now.versions.filter((version) => version.served || stored.has(version.name)).length;
}

/** The caBundle rotates with the webhook's certificates (cert-manager or crdgate injects it): no revision's business. */
function withoutCaBundle(webhook: unknown): unknown {
  if (!isPlainObject(webhook) || !isPlainObject(webhook.clientConfig)) return webhook;
  const { caBundle: _caBundle, ...clientConfig } = webhook.clientConfig;
  return { ...webhook, clientConfig };
}
