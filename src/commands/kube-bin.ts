import { resolveHelm } from '../control-plane/helm-binary.ts';
import { resolveKubeAssets } from '../control-plane/kube-assets.ts';
import type { Command } from './command.ts';
import { CommandError } from '../errors.ts';

export const kubeBinCommand: Command = {
  name: 'kube-bin',
  summary:
    'print a folder holding kube-apiserver, etcd and kubectl (or, with --helm, the helm binary), building them with Go the first time',
  usage: `crdgate kube-bin [--helm]

  Prints, as its only line on stdout, a folder in the layout setup-envtest writes (KUBEBUILDER_ASSETS):
  $KUBEBUILDER_ASSETS when it holds all three binaries, else crdgate's cache (under $XDG_CACHE_HOME or
  ~/.cache), built from Go modules when missing (Go >= 1.26; minutes, once). Progress goes to stderr, so
    export KUBEBUILDER_ASSETS="$(npx crdgate kube-bin)"
  works. crdgate dev and crdgate/testing find the same folder by themselves.

  --helm  print the path of helm instead, at the release crdgate's chart is tested with, built the same way into
          crdgate's cache: "$(npx crdgate kube-bin --helm)" install ... installs the chart of
          crdgate manifests --format helm without a helm of your own.`,
  options: { helm: { type: 'boolean' } },
  async run(values, io) {
    const log = (line: string) => io.stderr(`crdgate kube-bin: ${line}\n`);
    if (values['helm'] === true) {
      const helm = await resolveHelm({ build: true, log });
      if ('unavailable' in helm) throw new CommandError('KUBE_BINARIES_UNAVAILABLE', helm.unavailable);
      io.stdout(`${helm.path}\n`);
      return 0;
    }
    const assets = await resolveKubeAssets({ build: true, log });
    if ('unavailable' in assets) throw new CommandError('KUBE_BINARIES_UNAVAILABLE', assets.unavailable);
    io.stdout(`${assets.dir}\n`);
    return 0;
  },
};
