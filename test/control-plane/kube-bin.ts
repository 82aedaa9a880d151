// npm run --silent kube-bin
// Prints, as its last stdout line, a folder holding kube-apiserver, etcd and kubectl, building
// them with Go first when they are not cached. Progress goes to stderr, so
//   export KUBEBUILDER_ASSETS="$(npm run --silent kube-bin | tail -n 1)"
// works.
import { resolveKubeAssets } from './kube-assets.ts';

const assets = await resolveKubeAssets({ build: true });
if ('unavailable' in assets) {
  process.stderr.write(`kube-bin: ${assets.unavailable}\n`);
  process.exitCode = 1;
} else {
  process.stdout.write(`${assets.dir}\n`);
}
