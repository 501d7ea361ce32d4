/** JSON-line logging: the only place that writes to the console. */
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = typeof LOG_LEVELS[number];
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
  /** Whether lines of `level` are written (to skip building what would not be). */
  enabled?(level: LogLevel): boolean;
}

export interface LoggerOptions {
  /** The least severe level written (`LOG_LEVEL`, read into the base config); `info` unless set */
  level?: LogLevel;
  /** Fields every line of this logger carries */
  fields?: Record<string, unknown>;
}

export function createLogger(
  service: string,
  { level: least = "info", fields: base = {} }: LoggerOptions = {},
): Logger {
  const threshold = ORDER[least];
  const write = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < threshold) return;
    const line = JSON.stringify({
      time: new Date().toISOString(),
      level,
      service,
      ...base,
      msg,
      ...fields,
    });
    if (level === "error" || level === "warn") console.error(line);
    else console.log(line);
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    enabled: (level) => ORDER[level] >= threshold,
    child: (fields) => createLogger(service, { level: least, fields: { ...base, ...fields } }),
  };
}

/** The message of anything thrown, for logs. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/** The error's message alone, for an answer or a stored status: no stack, no file paths. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
