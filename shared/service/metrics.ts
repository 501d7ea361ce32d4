import { metrics } from "@opentelemetry/api";

/**
 * The spec's metrics through the OpenTelemetry API. With `OTEL_DENO=true`, Deno's built-in
 * exporter sends them on; without it they cost next to nothing.
 */
const meter = metrics.getMeter("content-pipeline");

const counters = new Map<string, ReturnType<typeof meter.createCounter>>();
const histograms = new Map<string, ReturnType<typeof meter.createHistogram>>();

export function countMetric(name: string, value = 1, attributes: Record<string, string> = {}) {
  let counter = counters.get(name);
  if (!counter) counters.set(name, counter = meter.createCounter(name));
  counter.add(value, attributes);
}

export function recordMetric(name: string, value: number, attributes: Record<string, string> = {}) {
  let histogram = histograms.get(name);
  if (!histogram) histograms.set(name, histogram = meter.createHistogram(name));
  histogram.record(value, attributes);
}
