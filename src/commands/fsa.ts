import { machineFormats, renderMachine, type MachineFormat } from '../contract/fsa/render/render-machine.ts';
import { compileContractPolicy } from '../policy/compile-policy.ts';
import { renderPolicyCoverage } from '../policy/policy-coverage.ts';
import { stringList, stringOption, UsageError, type Command } from './command.ts';
import { contractWarningLines, loadRegistry } from './contracts.ts';

export const fsaCommand: Command = {
  name: 'fsa',
  summary: "render a contract's FSA (states, allowed changes, unsupported changes)",
  usage: `crdgate fsa [--format mermaid|dot|table] [--coverage] [--kind KIND] [--contract MODULE]...

  Prints the FSA (the finite-state machine of allowed spec changes per lifecycle state: a contract's
  transitions). --kind picks the contract when several have one. Without --contract, the machine is the built-in GeoDatabase example's. Mermaid is the default.
  --coverage prints instead which change kinds and deletion rules the ValidatingAdmissionPolicy that
  \`crdgate manifests\` renders enforces (even while crdgate is down), which defaults its MutatingAdmissionPolicy
  sets, and why the others are the webhook's alone.`,
  options: {
    format: { type: 'string' },
    kind: { type: 'string' },
    coverage: { type: 'boolean' },
    contract: { type: 'string', multiple: true },
  },
  async run(values, io) {
    const format = stringOption(values, 'format') ?? 'mermaid';
    if (!(machineFormats as readonly string[]).includes(format)) {
      throw new UsageError(`--format must be one of ${machineFormats.join(', ')}, got "${format}"`);
    }
    const registry = await loadRegistry(stringList(values, 'contract'), io.cwd);
    const warnings = contractWarningLines(registry);
    if (warnings !== '') io.stderr(warnings);
    const kind = stringOption(values, 'kind');
    const withMachine = registry.contracts.filter((c) => c.contract.transitions);
    const known = withMachine.map((c) => c.contract.identity.kind).join(', ') || 'none';
    if (kind === undefined && withMachine.length > 1)
      throw new UsageError(`several contracts have an FSA: pick one with --kind (${known})`);
    const chosen = kind === undefined ? withMachine[0] : withMachine.find((c) => c.contract.identity.kind === kind);
    if (!chosen?.contract.transitions) {
      throw new UsageError(
        kind === undefined
          ? 'no contract has an FSA'
          : `--kind ${kind}: no contract with an FSA has that kind (known: ${known})`,
      );
    }
    if (values['coverage'] === true) {
      io.stdout(renderPolicyCoverage(chosen.contract, compileContractPolicy(chosen.contract)));
      return 0;
    }
    io.stdout(renderMachine(chosen.contract.transitions, format as MachineFormat));
    return 0;
  },
};
