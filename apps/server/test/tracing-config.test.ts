/** Which OTEL_* settings turn tracing on, and which are refused with a clear message. */
import { describe, expect, it } from 'vitest';
import { TracingConfigError, tracingSettingsFrom } from '../src/observability/tracing';

describe('tracingSettingsFrom', () => {
  it('is off without OTEL_* variables, or when they turn it off', () => {
    expect(tracingSettingsFrom({})).toBeUndefined();
    expect(tracingSettingsFrom({ OTEL_SERVICE_NAME: 'sb', OTEL_TRACES_SAMPLER: 'always_on' })).toBeUndefined();
    expect(tracingSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'TRUE' })).toBeUndefined();
    expect(tracingSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(tracingSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBeUndefined();
  });

  it('is on with an OTLP endpoint or the otlp exporter, named switchboard unless OTEL_SERVICE_NAME says otherwise', () => {
    expect(tracingSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({ serviceName: 'switchboard' });
    expect(tracingSettingsFrom({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector/v1/traces' })).toEqual({ serviceName: 'switchboard' });
    expect(tracingSettingsFrom({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SERVICE_NAME: 'billing-switchboard' })).toEqual({ serviceName: 'billing-switchboard' });
    expect(tracingSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' })).toEqual({ serviceName: 'switchboard' });
    expect(tracingSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'false' })).toEqual({ serviceName: 'switchboard' });
  });

  it('refuses what it cannot send, naming the variable', () => {
    const refusal = (env: NodeJS.ProcessEnv) => {
      try {
        tracingSettingsFrom(env);
      } catch (err) {
        expect(err).toBeInstanceOf(TracingConfigError);
        return (err as Error).message;
      }
      throw new Error(`accepted ${JSON.stringify(env)}`);
    };
    expect(refusal({ OTEL_TRACES_EXPORTER: 'otlp,zipkin' })).toBe('OTEL_TRACES_EXPORTER: zipkin is not supported; use otlp (or none)');
    expect(refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' })).toBe(
      'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: grpc is not supported; traces are sent as OTLP over HTTP (http/json)',
    );
    expect(refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toBe('OTEL_EXPORTER_OTLP_ENDPOINT: must be an http(s) URL (got "collector:4318")');
  });
});
