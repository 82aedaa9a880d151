import type * as ContractsModule from '../src/commands/contracts.ts';
import type * as ConfigModule from '../src/config.ts';
import type * as LogModule from '../src/log.ts';
import type * as ServeModule from '../src/server/serve.ts';
import { serveParent } from './child-channel.ts';
import { loadCrdgateModule } from './load-crdgate-module.ts';

// Child process: crdgate's real server as `crdgate serve` builds it (pino at the default level, info, to stdout;
// prom-client metrics; express), on a core of its own. From a compiled build when given one (what the image runs),
// else from src/. The parent decides where stdout goes, and which heap flags it runs with.

async function serveCrdgate(certDir: string, compiledSrcDir: string | undefined): Promise<void> {
  const { loadRegistry } = (await loadCrdgateModule(compiledSrcDir, 'commands/contracts')) as typeof ContractsModule;
  const { serveDefaults } = (await loadCrdgateModule(compiledSrcDir, 'config')) as typeof ConfigModule;
  const { createLogger } = (await loadCrdgateModule(compiledSrcDir, 'log')) as typeof LogModule;
  const { startServer } = (await loadCrdgateModule(compiledSrcDir, 'server/serve')) as typeof ServeModule;
  const running = await startServer({
    port: 0,
    host: '127.0.0.1',
    certDir,
    registry: await loadRegistry([], process.cwd()),
    logger: createLogger({ level: serveDefaults.logLevel }),
    limits: { admissionBytes: serveDefaults.admissionBodyBytes, conversionBytes: serveDefaults.conversionBodyBytes },
    drainDelayMs: 0,
    shutdownTimeoutMs: 2_000,
  });
  serveParent({ port: running.port, stop: () => running.shutdown() });
}

if (import.meta.main) {
  const [certDir, compiledSrcDir] = process.argv.slice(2);
  if (!certDir) throw new Error('usage: serve-crdgate.ts CERT_DIR [COMPILED_SRC_DIR]');
  await serveCrdgate(certDir, compiledSrcDir);
}
