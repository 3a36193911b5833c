/**
 * Lookups answered by the control plane: Services and ResourceInterpreterCustomizations
 * kept in watch-backed caches (informers), so a review reads memory, not the API server.
 * Until the first list has arrived, lookups wait for it (the review's deadline still
 * applies); readiness stays false meanwhile. Watches are renewed every 5 to 10 minutes, and one
 * the control plane falls silent on is given up and listed again (kube-watch.ts), so a connection
 * that black-holes cannot leave a cache stale for longer than that.
 */
import type { Logger } from 'pino';
import { apiGroup, type Lookups, type Service } from '../engine/rule.js';
import { rulesFor } from '../../rules/index.js';
import { within } from './deadline.js';
import { DEFAULT_WATCH_TIMEOUTS, expiringWatch, type WatchTimeouts } from './kube-watch.js';

export interface KubeLookupsOptions {
  /** A kubeconfig file; without it the in-cluster service-account configuration is used. */
  kubeconfig?: string;
  groupDomain: string;
  logger: Logger;
  /** Delay before restarting a failed watch. */
  restartDelayMs?: number;
  /** A list that has not answered by then counts as failed, and is retried. */
  listTimeoutMs?: number;
  /** How long watches run before they are renewed or, unanswered, given up (tests shorten them). */
  watchTimeouts?: WatchTimeouts;
}

/** kube-apiserver's own default --request-timeout: a healthy list answers well within it. */
const LIST_TIMEOUT_MS = 60_000;

export interface KubeLookups {
  lookups: Lookups;
  /** True once both caches have their first list. */
  synced(): boolean;
  stop(): Promise<void>;
}

interface CachedInformer<T> {
  get(name: string, namespace?: string): T | undefined;
  list(namespace?: string): ReadonlyArray<T>;
  on(verb: 'error', cb: (err?: unknown) => void): void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

type KubeClient = typeof import('@kubernetes/client-node');
let client: Promise<KubeClient> | undefined;

/**
 * The Kubernetes client, an optional peer dependency: it and its dependencies weigh some 50 MB
 * that a library consumer never needs, so only `serve --kubeconfig` and `--in-cluster` ask for
 * it, and its absence is a message saying what to install.
 */
export function kubeClient(flag: string): Promise<KubeClient> {
  client ??= import('@kubernetes/client-node').catch((err: { code?: string; message?: string }) => {
    client = undefined;
    // Only the package itself missing: a broken install of it (a dependency gone) is reported as it is.
    if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes("'@kubernetes/client-node'")) throw err;
    throw new Error(`${flag} needs the optional package @kubernetes/client-node, which is not installed: npm install @kubernetes/client-node@${KUBE_CLIENT_RANGE} (the container image has it)`);
  });
  return client;
}

/** The range of package.json's peerDependencies (test/package.test.ts keeps the two equal). */
export const KUBE_CLIENT_RANGE = '^1.4.0';

export async function kubeLookups(options: KubeLookupsOptions): Promise<KubeLookups> {
  const k8s = await kubeClient(options.kubeconfig ? '--kubeconfig' : '--in-cluster');
  const config = new k8s.KubeConfig();
  if (options.kubeconfig) config.loadFromFile(options.kubeconfig);
  else config.loadFromCluster();
  const core = config.makeApiClient(k8s.CoreV1Api);
  const custom = config.makeApiClient(k8s.CustomObjectsApi);
  const customization = rulesFor('ResourceInterpreterCustomization')!;
  const group = apiGroup(customization, options.groupDomain);
  const { version, plural } = customization;

  // The client sets no timeout on a list: one that hangs (a black-holed connection) would
  // never fail, so the cache would neither sync nor be restarted.
  const listTimeoutMs = options.listTimeoutMs ?? LIST_TIMEOUT_MS;
  const timed = <T>(what: string, list: () => Promise<T>) => () =>
    // Started inside a Promise, so a list that throws at once fails like one that rejects.
    within(new Promise<T>((done) => done(list())), listTimeoutMs, `list of ${what} did not answer within ${listTimeoutMs} ms`);
  // makeInformer's ListWatch, with this module's watch requests (timeouts) instead of the client's Watch.
  const transport = expiringWatch(config, options.watchTimeouts ?? DEFAULT_WATCH_TIMEOUTS, (path, afterMs) =>
    options.logger.warn({ path, afterMs }, 'the control plane sent nothing to end a watch past its timeout: given up, listing again'),
  );
  const informer = <T>(path: string, list: () => Promise<unknown>) =>
    new k8s.ListWatch(path, transport as unknown as InstanceType<KubeClient['Watch']>, list as never, false) as unknown as CachedInformer<T>;
  const services = informer<Service>('/api/v1/services', timed('services', () => core.listServiceForAllNamespaces()));
  const customizations = informer<unknown>(`/apis/${group}/${version}/${plural}`, timed(plural, () => custom.listClusterCustomObject({ group, version, plural })));

  let stopped = false;
  /** Starts an informer, restarting it after failures; resolves at its first complete list. */
  const watch = <T>(name: string, informer: CachedInformer<T>) => {
    let synced = false;
    let markSynced!: () => void;
    const firstList = new Promise<void>((done) => (markSynced = done));
    let restartPending = false;
    let failedAttempt = false;
    const restart = (err: unknown) => {
      failedAttempt = true;
      if (stopped || restartPending) return;
      restartPending = true;
      options.logger.warn({ cache: name, err: (err as Error)?.message ?? String(err) }, 'list/watch failed; restarting');
      setTimeout(() => {
        restartPending = false;
        start();
      }, options.restartDelayMs ?? 5_000).unref();
    };
    // start() resolves even when its list failed (the failure goes to the error callbacks),
    // so an attempt counts only if no error arrived while it ran.
    const start = () => {
      failedAttempt = false;
      return informer.start().then(() => {
        if (synced || failedAttempt) return;
        synced = true;
        options.logger.info({ cache: name }, 'cache synced');
        markSynced();
      }, restart);
    };
    informer.on('error', restart);
    start();
    return { firstList, synced: () => synced };
  };

  const servicesCache = watch('services', services);
  const customizationsCache = watch(plural, customizations);

  return {
    lookups: {
      getService: (namespace, name) =>
        servicesCache.synced() ? services.get(name, namespace) : servicesCache.firstList.then(() => services.get(name, namespace)),
      listResourceInterpreterCustomizations: () =>
        customizationsCache.synced() ? customizations.list() : customizationsCache.firstList.then(() => customizations.list()),
    },
    synced: () => servicesCache.synced() && customizationsCache.synced(),
    stop: async () => {
      stopped = true;
      await Promise.allSettled([services.stop(), customizations.stop()]);
    },
  };
}
