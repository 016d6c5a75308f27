export * from './canonical-json';
export * from './errors';
export * from './method';
export * from './methods/index';
export * from './openrpc';
export * from './records';
export * from './json-depth';
export * from './limits';
