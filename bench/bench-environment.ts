import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildCompiledCopy, type CompiledBuild } from './compiled-build.ts';
import { deploymentNodeOptions } from './deployment-resources.ts';
import { makeFreshCertDir, type FreshCertDir } from './support/fresh-cert-dir.ts';
import { createKeepAliveAgent, type Target } from './support/https-client.ts';
import type { Variant } from './serve-crdgate-variant.ts';
import { startPeerProcess } from './peer/peer-process.ts';
import { startServerProcess, type ServerProcess } from './server-process.ts';

/** What every suite shares: one certificate, one compiled build, the server processes, and their cleanup. */
export interface BenchEnvironment {
  certs: FreshCertDir;
  build: CompiledBuild;
  /** Which crdgate the server process runs: the compiled build (as the image does) or src/*.ts. */
  crdgateBuild: 'compiled' | 'source';
  startBare(): Promise<ServerProcess>;
  startCrdgate(): Promise<ServerProcess>;
  /** The controller-runtime peer (bench/peer/), from a binary resolvePeerBinary built. */
  startPeer(binaryPath: string, env?: Record<string, string>): Promise<ServerProcess>;
  /** crdgate with layers taken away (see serve-crdgate-variant.ts). */
  startCrdgateVariant(variant: Variant): Promise<ServerProcess>;
  /** A fresh keep-alive agent for one run, destroyed after it, so no run inherits another's connections. */
  withAgent<T>(server: ServerProcess, sockets: number, use: (target: Target) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

// What the image sets; without it express and friends take their development paths.
export const productionEnv = { NODE_ENV: 'production' };

type ServerScript = 'serve-bare' | 'serve-crdgate' | 'serve-crdgate-variant';

export async function openBenchEnvironment(
  fromSource: boolean,
  progress: (line: string) => void,
): Promise<BenchEnvironment> {
  const certs = await makeFreshCertDir();
  let build: CompiledBuild;
  try {
    progress('compiling src/ and bench/ into a temporary directory (tsc)');
    build = await buildCompiledCopy();
  } catch (error) {
    await certs.remove();
    throw error;
  }
  if (build.diagnostics)
    progress(`tsc reported problems (the emitted JavaScript is used all the same):\n${build.diagnostics}`);
  // All servers run compiled, or all from source: the baseline must not carry a type stripper crdgate does not.
  const script = (name: ServerScript) =>
    fromSource ? new URL(`./${name}.ts`, import.meta.url) : pathToFileURL(join(build.benchDir, `${name}.js`));
  const crdgateArgs = fromSource ? [certs.dir] : [certs.dir, build.srcDir];
  // Every Node server gets the NODE_OPTIONS of the rendered Deployment, in NODE_OPTIONS as the pod passes them
  // (Node takes fewer V8 flags there than on its command line): crdgate runs as in its pod, and the bare server and
  // the ladder's rungs on the same V8 settings, so a comparison is of code, not of flags.
  const nodeOptions = { NODE_OPTIONS: deploymentNodeOptions() };
  const options = { execArgv: [], env: fromSource ? nodeOptions : { ...nodeOptions, ...productionEnv } };
  const servers: ServerProcess[] = [];
  const started = (server: ServerProcess) => {
    servers.push(server);
    return server;
  };
  return {
    certs,
    build,
    crdgateBuild: fromSource ? 'source' : 'compiled',
    startBare: async () => started(await startServerProcess(script('serve-bare'), [certs.dir], options)),
    startCrdgate: async () => started(await startServerProcess(script('serve-crdgate'), crdgateArgs, options)),
    startPeer: async (binaryPath, peerEnv) => started(await startPeerProcess(binaryPath, certs.dir, peerEnv)),
    startCrdgateVariant: async (variant) =>
      started(await startServerProcess(script('serve-crdgate-variant'), [variant, ...crdgateArgs], options)),
    withAgent: async (server, sockets, use) => {
      const agent = createKeepAliveAgent(certs.ca, sockets);
      try {
        return await use({ port: server.port, agent });
      } finally {
        agent.destroy();
      }
    },
    close: async () => {
      await Promise.all(servers.map((server) => server.stop()));
      await Promise.all([certs.remove(), build.remove()]);
    },
  };
}
