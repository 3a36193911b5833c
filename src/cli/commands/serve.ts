/** `fleetgate serve`: the HTTPS admission webhook. */
import { pino } from 'pino';
import { serve } from '../../server/serve.js';
import { boundOldGenerationGrowth, YOUNG_GENERATION_CAP_BYTES, youngGenerationSizedByOperator } from '../../server/heap.js';
import { BACKGROUND_THREADS_MODES, type BackgroundThreadsMode } from '../../server/thread-priority.js';
import { groupDomainProblem, parseFlags, usageError, type CliIO, type Command } from '../io.js';

const HELP = `Usage: fleetgate serve [flags]

Runs the HTTPS admission webhook.

Flags:
  --port N                    webhook HTTPS port (default 8443)
  --probe-port N              plain-HTTP port for /healthz, /readyz, /livez, /metrics (default 8000)
  --bind-address ADDR         address to listen on (default: every IPv6 and IPv4 address,
                              or every IPv4 address where IPv6 is off)
  --cert-dir DIR              directory holding tls.crt and tls.key
  --dev-cert-dir DIR          where development certificates are kept when no certificate
                              is given (default ./certs)
  --tls-cert-file FILE        serving certificate (with --tls-private-key-file)
  --tls-private-key-file FILE serving private key
  --tls-min-version V         1.2 (default) or 1.3
  --client-ca-file FILE       require client certificates signed by this CA (the API server's)
  --group-domain DOMAIN       API group domain (default karmada.io)
  --kubeconfig FILE           read Services and ResourceInterpreterCustomizations from the
                              control plane (watch-backed caches) for the context rules
  --in-cluster                the same with the pod's service account
  --context FILE|DIR          or: answer the context rules from these files (YAML or JSON);
                              repeatable
  --context-failure-policy P  fail (default: deny when lookups fail or time out) or ignore
                              (allow with a warning)
  --log-level LEVEL           debug, info (default), warn, error
  --log-format FORMAT         text (default on a terminal) or json (default otherwise:
                              one JSON object a line)
  --allow-no-execute-taint-policy=false
                              forbid NoExecute ClusterTaintPolicy taints (Karmada's default)
  --warm-up=false             report ready at once, without first reviewing the built-in
                              corpus of realistic objects over loopback (by default /readyz
                              waits for that warm-up, about 2 s, so a new pod does
                              not answer its first requests with cold code)
  --background-threads MODE   V8's compiler and GC threads, after the warm-up (Linux):
                              adaptive (default) runs them below the thread that answers
                              reviews while it has idle time, at its priority while it is
                              saturated (needs CAP_SYS_NICE, else they are left alone);
                              low keeps them below it (lower latency on one core, fewer
                              reviews a second at saturation); normal leaves them alone

With no certificate flags, a development CA and a serving certificate for localhost,
127.0.0.1 and ::1 are generated into ./certs (or --dev-cert-dir) on first start and
reused afterwards; certificates found there for other names are never overwritten.
The first log line gives the webhook's URL, the CA file to trust and the probe URL.

Example:
  fleetgate serve --cert-dir /var/serving-cert --group-domain karmada.io
`;

/** Log lines as sentences for a person at a terminal: time, level, message, then any details. */
async function textLines(io: CliIO): Promise<(line: string) => void> {
  // Loaded only for text: a server logging JSON (in a container, under a supervisor) never needs it.
  const { prettyFactory } = (await import('pino-pretty')).default;
  const pretty = prettyFactory({
    colorize: io.stderrIsTTY === true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss',
    // The start-up line says all of these in its sentence already.
    ignore: 'pid,hostname,port,probePort,address,groupDomain,caBundle',
  });
  return (line) => io.stderr(pretty(line));
}

async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseFlags('serve', io, {
    args,
    strict: true,
    options: {
      port: { type: 'string' },
      'probe-port': { type: 'string' },
      'bind-address': { type: 'string' },
      'cert-dir': { type: 'string' },
      'tls-cert-file': { type: 'string' },
      'tls-private-key-file': { type: 'string' },
      'tls-min-version': { type: 'string' },
      'group-domain': { type: 'string' },
      'allow-no-execute-taint-policy': { type: 'string' },
      'client-ca-file': { type: 'string' },
      context: { type: 'string', multiple: true },
      kubeconfig: { type: 'string' },
      'in-cluster': { type: 'boolean' },
      'context-failure-policy': { type: 'string' },
      'log-level': { type: 'string' },
      'log-format': { type: 'string' },
      'dev-cert-dir': { type: 'string' },
      'warm-up': { type: 'string' },
      'background-threads': { type: 'string' },
    },
  });
  if (!parsed) return 2;
  const { values } = parsed;
  // Flag problems are usage errors (exit 2); a server that cannot start is a failure (exit 1).
  const usage = (message: string) => usageError('serve', io, message);
  const port = (value: string | undefined, fallback: number): number | undefined => {
    if (value === undefined) return fallback;
    // Decimal digits only: Number() reads '' as 0 (a random port), '0x1F40' as 8000, '1e3' as 1000.
    const n = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
    return n <= 65535 ? n : undefined;
  };
  const webhookPort = port(values.port, 8443);
  if (webhookPort === undefined) return usage(`--port must be a port number, got "${values.port}"`);
  const probePort = port(values['probe-port'], 8000);
  if (probePort === undefined) return usage(`--probe-port must be a port number, got "${values['probe-port']}"`);
  const minVersion = values['tls-min-version'] ?? '1.2';
  if (minVersion !== '1.2' && minVersion !== '1.3') return usage(`--tls-min-version must be 1.2 or 1.3, got "${minVersion}"`);
  const allowNoExecute = values['allow-no-execute-taint-policy'];
  if (allowNoExecute !== undefined && allowNoExecute !== 'true' && allowNoExecute !== 'false') {
    return usage('--allow-no-execute-taint-policy must be true or false');
  }
  const policy = values['context-failure-policy'] ?? 'fail';
  if (policy !== 'fail' && policy !== 'ignore') return usage(`--context-failure-policy must be fail or ignore, got "${policy}"`);
  const domainProblem = values['group-domain'] === undefined ? undefined : groupDomainProblem(values['group-domain']);
  if (domainProblem) return usage(domainProblem);
  const warmUp = values['warm-up'] ?? 'true';
  if (warmUp !== 'true' && warmUp !== 'false') return usage(`--warm-up must be true or false, got "${warmUp}"`);
  const backgroundThreads = values['background-threads'] ?? 'adaptive';
  if (!isBackgroundThreadsMode(backgroundThreads)) return usage(`--background-threads must be adaptive, low or normal, got "${backgroundThreads}"`);
  const level = values['log-level'] ?? 'info';
  if (!['debug', 'info', 'warn', 'error'].includes(level)) return usage(`--log-level must be debug, info, warn or error, got "${level}"`);
  const format = values['log-format'] ?? (io.stderrIsTTY ? 'text' : 'json');
  if (format !== 'text' && format !== 'json') return usage(`--log-format must be text or json, got "${format}"`);
  // This process is the server from here on: a long-running one, so its heap is kept small.
  boundOldGenerationGrowth();
  try {
    const server = await serve({
      port: webhookPort,
      probePort,
      bindAddress: values['bind-address'],
      certDir: values['cert-dir'],
      devCertDir: values['dev-cert-dir'],
      tlsCertFile: values['tls-cert-file'],
      tlsPrivateKeyFile: values['tls-private-key-file'],
      tlsMinVersion: minVersion === '1.3' ? 'TLSv1.3' : 'TLSv1.2',
      groupDomain: values['group-domain'],
      allowNoExecuteTaintPolicy: allowNoExecute === undefined ? undefined : allowNoExecute === 'true',
      clientCaFile: values['client-ca-file'],
      contextPaths: values.context,
      kubeconfig: values.kubeconfig,
      inCluster: values['in-cluster'],
      contextFailurePolicy: policy,
      warmUp: warmUp === 'true',
      backgroundThreads,
      youngGenerationCapBytes: youngGenerationSizedByOperator() ? undefined : YOUNG_GENERATION_CAP_BYTES,
      logger: pino({ level }, { write: format === 'json' ? (line: string) => io.stderr(line) : await textLines(io) }),
    });
    io.onServe?.(server);
    return 0;
  } catch (err) {
    io.stderr(`fleetgate serve: ${(err as Error).message}\n`);
    return 1;
  }
}

const isBackgroundThreadsMode = (value: string): value is BackgroundThreadsMode => (BACKGROUND_THREADS_MODES as readonly string[]).includes(value);

export const serveCommand: Command = { name: 'serve', summary: 'run the HTTPS admission webhook', help: HELP, run };
