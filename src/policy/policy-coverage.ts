import type { Contract } from '../contract/contract-definition.ts';
import type { DefaultCoverage } from './compile-defaults.ts';
import type { UnclassifiedCoverage } from './compile-machine.ts';
import type { StateCoverage } from './compile-state-reading.ts';
import type { ContractPolicy, RuleCoverage } from './compile-policy.ts';

// How crdgate tells a user what the API server enforces on its own: in full by `crdgate fsa --coverage`, and as a
// summary by `crdgate manifests`, so that a change kind the policy does not hold is never a surprise in an outage.

/** The full report: every change kind, deletion rule and default, and who enforces or sets it. */
export function renderPolicyCoverage(contract: Contract, policy: ContractPolicy): string {
  const { changeKinds, deletionRules, webhookOnly, subresources, defaults, hiddenFields } = policy.coverage;
  const kindRows = changeKinds.map((entry) =>
    entry.enforcedBy === 'policy'
      ? `| ${entry.kind} | policy and webhook | |`
      : `| ${entry.kind} | webhook only | ${cell(entry.reason)} |`,
  );
  const ruleRows = deletionRules.map((entry) =>
    entry.enforcedBy === 'policy'
      ? `| ${cell(entry.rule)} | policy and webhook | |`
      : `| ${cell(entry.rule)} | webhook only | ${cell(entry.reason)} |`,
  );
  const sections = [
    `${contract.identity.kind}: what the ValidatingAdmissionPolicy enforces even while crdgate is down`,
    ...(policy.coverage.state === undefined ? [] : [stateSentence(policy.coverage.state)]),
    ...(kindRows.length > 0
      ? [['| change kind | enforced by | why not by the policy |', '|---|---|---|', ...kindRows].join('\n')]
      : ['No FSA.']),
    ...unclassifiedSection(policy.coverage.unclassified, kindRows.length > 0),
    ...(ruleRows.length > 0
      ? [['| deletion rule | enforced by | why not by the policy |', '|---|---|---|', ...ruleRows].join('\n')]
      : []),
    ...(hiddenFields.length > 0
      ? [
          [
            '| a change, unseen, of a field an older version cannot show: | enforced by | why not by the policy |',
            '|---|---|---|',
            ...hiddenFields.map((entry) =>
              entry.enforcedBy === 'policy'
                ? `| ${cell(entry.rule)} | policy and webhook | |`
                : `| ${cell(entry.rule)} | webhook only | ${cell(entry.reason)} |`,
            ),
          ].join('\n'),
        ]
      : []),
    ...(subresources.length > 0
      ? [
          [
            '| spec changes through | enforced by | why not by the policy |',
            '|---|---|---|',
            ...subresources.map((entry) => `| /${entry.subresource} | webhook only | ${cell(entry.reason)} |`),
          ].join('\n'),
        ]
      : []),
    `Enforced by the webhook only: ${webhookOnly.join(', ')}.`,
    ...defaultsSection(contract, defaults),
  ];
  return `${sections.join('\n\n')}\n`;
}

/** One line per contract, and one more per kind, rule or default the policies do not hold. */
export function summarizePolicyCoverage(contract: Contract, policy: ContractPolicy): string {
  const { changeKinds, deletionRules, subresources, defaults } = policy.coverage;
  const kinds = changeKinds.filter((entry) => entry.enforcedBy === 'policy').length;
  const rules = deletionRules.filter((entry) => entry.enforcedBy === 'policy').length;
  const set = defaults.filter((entry) => entry.enforcedBy === 'policy').length;
  const state = policy.coverage.state;
  const { hiddenFields } = policy.coverage;
  const hidden = hiddenFields.filter((entry) => entry.enforcedBy === 'policy').length;
  const lines = [
    `policy floor for ${contract.identity.kind}: the API server enforces ${kinds} of ${changeKinds.length} change kinds and ${rules} of ${deletionRules.length} deletion rules` +
      (hiddenFields.length > 0
        ? `, refuses unseen changes of ${hidden} of ${hiddenFields.length} fields an older version cannot show`
        : '') +
      (defaults.length > 0 ? `, and sets ${set} of ${defaults.length} defaults` : ''),
    ...(state?.readBy === 'none'
      ? [`  webhook only: the state: ${state.reason}; the policy refuses only what every state refuses`]
      : []),
    ...changeKinds.flatMap((entry) =>
      entry.enforcedBy === 'webhook' ? [`  webhook only: change kind ${entry.kind}: ${entry.reason}`] : [],
    ),
    ...policy.coverage.unclassified.webhookOnly.map(
      (entry) => `  webhook only: ${unclassifiedHeading} at ${entry.field}: ${entry.reason}`,
    ),
    ...deletionRules.flatMap((entry) =>
      entry.enforcedBy === 'webhook' ? [`  webhook only: deletion rule ${entry.rule}: ${entry.reason}`] : [],
    ),
    ...subresources.map((entry) => `  webhook only: spec changes through /${entry.subresource}: ${entry.reason}`),
    ...hiddenFieldLines(policy.coverage.hiddenFields),
    ...defaults.flatMap((entry) =>
      entry.enforcedBy === 'webhook' ? [`  webhook only: default ${entry.default}: ${entry.reason}`] : [],
    ),
  ];
  return `${lines.join('\n')}\n`;
}

const unclassifiedHeading = 'changes no change kind names';

/** The fields only the webhook guards against an older version's write, one line per reason. */
function hiddenFieldLines(entries: readonly RuleCoverage[]): string[] {
  const byReason = new Map<string, string[]>();
  for (const entry of entries)
    if (entry.enforcedBy === 'webhook') byReason.set(entry.reason, [...(byReason.get(entry.reason) ?? []), entry.rule]);
  return [...byReason].map(([reason, rules]) => `  webhook only: an unseen change of ${rules.join(', ')}: ${reason}`);
}

/** How the policy tells the state an update starts from, which decides what it can enforce. */
function stateSentence(state: StateCoverage): string {
  switch (state.readBy) {
    case 'phase':
      return `The state: read from ${state.path}.`;
    case 'conditions':
      return (
        `The state: read by the conditionStates rules from the first ${state.conditionsRead} conditions; on an object with more, ` +
        'the policy reads no state and refuses only what every state refuses.'
      );
    case 'none':
      return `The state: not read by the policy: ${state.reason}. The policy refuses only what every state refuses, and, once a deletion has started, what the deleting state refuses.`;
  }
}

/** Per field the webhook alone compares, and the rest; a line when no state refuses such changes. */
function unclassifiedSection(coverage: UnclassifiedCoverage, hasMachine: boolean): string[] {
  if (!hasMachine) return [];
  if (!coverage.judged)
    return [`Changes no change kind names: allowed in every state, so there is nothing to enforce.`];
  const rows = coverage.webhookOnly.map((entry) => `| ${cell(entry.field)} | webhook only | ${cell(entry.reason)} |`);
  if (coverage.compiled)
    rows.push(`| ${rows.length > 0 ? 'every other spec field' : 'every spec field'} | policy and webhook | |`);
  // Judged, and nothing to compare: the classifiers cover every field the schema declares.
  if (rows.length === 0) rows.push('| no spec field: the classifiers cover them all | | |');
  return [
    [`| ${unclassifiedHeading}, at | enforced by | why not by the policy |`, '|---|---|---|', ...rows].join('\n'),
  ];
}

/** Per default, whether the MutatingAdmissionPolicy sets it too; nothing for a contract without defaults. */
function defaultsSection(contract: Contract, defaults: readonly DefaultCoverage[]): string[] {
  if (defaults.length === 0) return [];
  const rows = defaults.map((entry) =>
    entry.enforcedBy === 'policy'
      ? `| ${cell(entry.default)} | policy and webhook | |`
      : `| ${cell(entry.default)} | webhook only | ${cell(entry.reason)} |`,
  );
  return [
    `${contract.identity.kind}: what the MutatingAdmissionPolicy sets even while crdgate is down`,
    ['| default | set by | why not by the policy |', '|---|---|---|', ...rows].join('\n'),
  ];
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}
