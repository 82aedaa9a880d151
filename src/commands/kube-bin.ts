import { resolveKubeAssets } from '../control-plane/kube-assets.ts';
import type { Command } from './command.ts';
import { CommandError } from '../errors.ts';

export const kubeBinCommand: Command = {
  name: 'kube-bin',
  summary: 'print a folder holding kube-apiserver, etcd and kubectl, building them with Go the first time',
  usage: `crdgate kube-bin

  Prints, as its only line on stdout, a folder in the layout setup-envtest writes (KUBEBUILDER_ASSETS):
  $KUBEBUILDER_ASSETS when it holds all three binaries, else crdgate's cache (under $XDG_CACHE_HOME or
  ~/.cache), built from Go modules when missing (Go >= 1.26; minutes, once). Progress goes to stderr, so
    export KUBEBUILDER_ASSETS="$(npx crdgate kube-bin)"
  works. crdgate dev and crdgate/testing find the same folder by themselves.`,
  options: {},
  async run(_values, io) {
    const assets = await resolveKubeAssets({ build: true, log: (line) => io.stderr(`crdgate kube-bin: ${line}\n`) });
    if ('unavailable' in assets) throw new CommandError('KUBE_BINARIES_UNAVAILABLE', assets.unavailable);
    io.stdout(`${assets.dir}\n`);
    return 0;
  },
};
