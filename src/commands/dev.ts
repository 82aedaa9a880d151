import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveKubeAssets } from '../control-plane/kube-assets.ts';
import { startDevSession } from '../local-loop/dev-session.ts';
import { stringList, stringOption, type Command } from './command.ts';
import { CommandError } from '../errors.ts';
import { locateContractModule } from './contracts.ts';
import { webhookFlags, webhookOptions, webhookOptionsUsage, webhookSettings } from './webhook-options.ts';

const defaultName = 'crdgate-dev';

export const devCommand: Command = {
  name: 'dev',
  summary: 'run your contracts in front of a local kube-apiserver and etcd, reloading them on every edit',
  usage: `crdgate dev [--contract MODULE]... [--name NAME] [--failure-policy Fail|Ignore] [--timeout-seconds N]
                  [--namespace-selector SELECTOR] [--object-selector SELECTOR]

  One command for the local loop, no cluster and no container runtime needed:
  - starts etcd and kube-apiserver on 127.0.0.1 (binaries from $KUBEBUILDER_ASSETS in setup-envtest's layout,
    else crdgate's cache, built from Go modules the first time: Go >= 1.26, minutes, once);
  - serves the contracts (default: the built-in GeoDatabase example) and applies their CRDs and webhook
    configurations by URL, then prints the kubeconfig and kubectl to use;
  - watches each contract's folder: an edit reloads what crdgate serves and what the API server was given (a
    schema edit reaches the CRD too); a contract that stops loading keeps the last good one serving;
  - notices when the serving process dies, says so, and starts it again;
  - Ctrl-C or SIGTERM stops everything it started, as does the exit of the process that started it (a stopped
    npm run dev or npx crdgate dev).
  --contract MODULE  a contract module, as for crdgate serve (a file, or a package resolved from here)
  --name NAME        the webhook configurations' name (default ${defaultName})
  The webhooks' settings, as crdgate manifests renders them:
${webhookOptionsUsage}`,
  options: {
    contract: { type: 'string', multiple: true },
    name: { type: 'string' },
    ...webhookOptions,
  },
  async run(values, io) {
    const started = Date.now();
    const contracts = stringList(values, 'contract');
    const name = stringOption(values, 'name') ?? defaultName;
    // Checked here, before anything starts: a bad value is the user's error, said once.
    webhookSettings(values);
    const webhookFlagsGiven = webhookFlags(values);
    const watchDirs = contracts.flatMap((contract) => {
      const { url } = locateContractModule(contract, io.cwd);
      // A contract from a package is not the user's to edit here: only files are watched.
      return url.includes('/node_modules/') ? [] : [dirname(fileURLToPath(url))];
    });
    const say = (line: string): void => io.stdout(`crdgate dev: ${line}\n`);
    // Stopped by a signal, or by its wrapper's exit: `npm run dev` and `npx` start it through a shell that dies of
    // the signal npm forwards to it, and the signal never reaches crdgate.
    const stopSignal = Promise.race([
      io.waitForStop(),
      ...(io.waitForParentExit ? [io.waitForParentExit().then(() => 'its parent process exited')] : []),
    ]);

    const assets = await resolveKubeAssets({ build: true, log: (line) => io.stderr(`crdgate dev: ${line}\n`) });
    if ('unavailable' in assets)
      throw new CommandError('KUBE_BINARIES_UNAVAILABLE', `no kube-apiserver, etcd and kubectl: ${assets.unavailable}`);
    const starting = startDevSession({
      contracts,
      watchDirs,
      cwd: io.cwd,
      assetsDir: assets.dir,
      name,
      webhookFlags: webhookFlagsGiven,
      say,
    });
    const first = await Promise.race([
      starting.then((session) => ({ session })),
      stopSignal.then((signal) => ({ signal })),
    ]).catch((error: unknown) => ({ error: error as Error }));
    if ('error' in first) throw new CommandError('DEV_START_FAILED', `cannot start: ${first.error.message}`);
    if ('signal' in first) {
      // Asked to stop while starting: let the start finish, so that what it started is known and can be stopped.
      await (await starting.catch(() => undefined))?.stop();
      return 0;
    }
    const { session } = first;
    const { controlPlane } = session;
    io.stdout(
      [
        `crdgate dev: ready in ${((Date.now() - started) / 1000).toFixed(1)} s: kube-apiserver ${controlPlane.kubeApiserverVersion} at ${controlPlane.apiServerUrl}, crdgate at ${session.current().url}`,
        `crdgate dev: ${watchDirs.length > 0 ? `watching ${watchDirs.join(', ')}` : 'serving the built-in example (no --contract): nothing to watch'}`,
        `crdgate dev: logs and data in ${controlPlane.dir}`,
        'In another terminal:',
        `  export KUBECONFIG=${controlPlane.kubeconfigPath}`,
        `  export PATH="${assets.dir}:$PATH"    # kubectl ${assets.kubeApiserverVersion}`,
        'Ctrl-C stops everything.',
        '',
      ].join('\n'),
    );
    const signal = await stopSignal;
    say(`${signal}: stopping crdgate, kube-apiserver and etcd`);
    await session.stop();
    say('stopped');
    return 0;
  },
};
