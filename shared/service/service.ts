import type { BaseConfig, ServiceName } from "../config.ts";
import type { Logger } from "../log.ts";
import type { FetchHandler, ServiceDirectory } from "./service_directory.ts";

/** What every service factory is given: its environment, the shared settings, where peers are. */
export interface ServiceContext {
  env: Record<string, string | undefined>;
  base: BaseConfig;
  directory: ServiceDirectory;
  logger: Logger;
}

/** A built service: its fetch handler, a start (queue listeners, bootstrap), and a close. */
export interface ServiceInstance {
  name: ServiceName;
  fetch: FetchHandler;
  /** Resolves once the service is ready to answer (KV open, queue listener running). */
  start(): Promise<void>;
  close(): Promise<void>;
}

export type ServiceFactory = (ctx: ServiceContext) => Promise<ServiceInstance>;

/**
 * Marks a service ready once its queue listener is attached. `listen()` only settles when the
 * KV closes, so readiness is the moment it has been called without throwing.
 */
export function startListening(listen: () => Promise<void>, logger: Logger): Promise<void> {
  const running = listen();
  running.catch((err) => logger.error("queue listener stopped", { error: String(err) }));
  return Promise.resolve();
}
